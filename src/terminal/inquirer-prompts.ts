/**
 * The inquirer prompts paytx asks with, each from its own package: @inquirer/prompts brings every
 * prompt into the bundle (esbuild cannot leave out the ones not used), and its editor prompt 650 KB
 * of character encodings (iconv-lite, chardet) that every command read as it started. prompts.ts
 * loads this module only when a person is asked something.
 */
export {default as confirm} from '@inquirer/confirm'
export {default as input} from '@inquirer/input'
export {default as select} from '@inquirer/select'
