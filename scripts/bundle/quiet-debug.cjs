// The `debug` package as the bundle sees it. oclif makes its loggers with debug(namespace) as
// its modules load, and loading debug loads tty, util and supports-color with it: 7 to 15 ms of
// every command's start-up, for output that shows only when DEBUG is set. Without DEBUG the
// loggers are silent functions and debug is never loaded; with DEBUG it is the package itself.
'use strict'

function quiet(namespace) {
  const logger = () => {}
  logger.namespace = namespace
  logger.enabled = false
  logger.log = () => {}
  logger.extend = (child, delimiter) => quiet(`${namespace}${delimiter ?? ':'}${child}`)
  logger.destroy = () => false
  return logger
}
quiet.enabled = () => false
quiet.enable = () => {}
quiet.disable = () => ''

// The build points this require at the real package (scripts/build.js, quietDebugPlugin).
module.exports = process.env.DEBUG ? require('debug') : quiet
