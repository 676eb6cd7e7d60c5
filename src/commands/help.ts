// oclif's help command, from @oclif/plugin-help, bundled as one of paytx's own commands: oclif
// then loads no plugin as it starts (reading each plugin's package.json and manifest took about
// 7 ms of every run's CPU, --version included).
import {commands} from '@oclif/plugin-help'

export default commands.help
