/** Why a file given on the command line could not be read, in the words of the messages that name it. */
export function fileReadReason(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code
  if (code === 'ENOENT') return 'it does not exist'
  if (code === 'EISDIR') return 'it is a folder'
  if (code === 'EACCES' || code === 'EPERM') return 'you may not read it (permission denied)'
  // A SpecialFileError's message is its reason ("it is a device, not a regular file").
  return (error as Error).message
}
