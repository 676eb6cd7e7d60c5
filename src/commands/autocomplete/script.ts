// The command of @oclif/plugin-autocomplete, bundled as one of paytx's own commands (see
// commands/help.ts for why: oclif loads no plugin as it starts). The plugin's package exports
// none of its commands; tsconfig's paths (read by esbuild too) point at the module itself.
export {default} from '@oclif/plugin-autocomplete/lib/commands/autocomplete/script.js'
