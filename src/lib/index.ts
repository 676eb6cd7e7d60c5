/** `paytx`: the contract and the emulator in one import (`paytx/contract`, `paytx/emulator`). A facade: it only re-exports. */
export * from './contract.js'
export * from './emulator.js'
