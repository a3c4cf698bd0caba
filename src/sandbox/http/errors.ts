import type { ServerResponse } from 'node:http';

/** An error the sandbox answers with the service's envelope {errorCode, errorMessage}. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly errorCode: number | string,
    message: string,
    /** The denoise progress 404 answers a bare {message}. */
    readonly bare = false,
  ) {
    super(message);
  }
}

export const badRequest = (message: string, code: number | string = 40001) => new HttpError(400, code, message);
export const unauthorized = (message = 'Invalid or missing API key') => new HttpError(401, 40101, message);
export const forbidden = (endpoint: string) => new HttpError(403, 40301, `Access denied: this key cannot call ${endpoint}`);
export const notFound = (message: string) => new HttpError(404, 40401, message);
export const tooLarge = (message: string) => new HttpError(413, 41301, message);
export const tooMany = () => new HttpError(429, 42901, 'Concurrency limit exceeded');
export const insufficient = (required: number, available: number) =>
  new HttpError(402, 40201, `Insufficient wallet balance. Required: ${required} credits, Available: ${available} credits`);

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  if (res.headersSent) return void res.end();
  const text = JSON.stringify(body);
  res.writeHead(status, { ...res.getHeaders(), 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

export function sendError(res: ServerResponse, err: HttpError): void {
  sendJson(res, err.status, err.bare ? { message: err.message } : { errorCode: err.errorCode, errorMessage: err.message });
}
