// The two ways an upload is refused for what it is (docs/media.md): the HTTP layer answers 400 BAD_USER_INPUT
// naming `field` for the first, 413 PAYLOAD_TOO_LARGE for the second.

/** The upload's content is not acceptable (empty, an image that cannot be decoded or is too large). */
export class MediaInputError extends Error {
  constructor(
    readonly field: string,
    readonly reason: string,
  ) {
    super(`${field}: ${reason}`);
    this.name = 'MediaInputError';
  }
}

/** The upload is larger than the service accepts (`--max-upload-mb`). */
export class UploadTooLarge extends Error {
  constructor(readonly limitBytes: number) {
    super(`the upload is larger than ${limitBytes} bytes`);
    this.name = 'UploadTooLarge';
  }
}
