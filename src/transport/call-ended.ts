/** The `code` of the error a transport throws when asked to act on (transfer) a call that has already ended. */
export const CALL_ENDED = 'ERR_HIWAR_CALL_ENDED';
