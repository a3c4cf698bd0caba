/**
 * The line an agent says when its reply could not be made (the model failed, a tool threw): the
 * default of `REPLY_DEFAULTS.modelErrorLine` and of the scripted model's `toolErrorLine`. A module
 * of its own so that the model adapters need not import the reply stage (and with it the speaker,
 * the service client and the browser pages' type checks' worth of Node modules).
 */
export const MODEL_ERROR_LINE = 'عذرًا، حدث خلل مؤقت. هل يمكنك إعادة طلبك؟';
