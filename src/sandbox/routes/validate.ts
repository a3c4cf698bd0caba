import { badRequest } from '../http/errors.ts';

/** Parameter checks with the service's messages. */
export function range(value: unknown, field: string, min: number, max: number): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < min || value > max) {
    throw badRequest(`${field} must be a number between ${min} and ${max}`);
  }
  return value;
}

export function requiredString(value: unknown, field: string): string {
  if (typeof value !== 'string' || value.trim() === '') throw badRequest(`${field} is required`);
  return value;
}

export function sampleRate(value: unknown, field = 'sample_rate'): number | undefined {
  const v = range(value, field, 8000, 48000);
  if (v !== undefined && !Number.isInteger(v)) throw badRequest(`${field} must be an integer`);
  return v;
}

export function oneOf<T extends string>(value: unknown, field: string, allowed: readonly T[]): T | undefined {
  if (value === undefined || value === null) return undefined;
  if (!allowed.includes(value as T)) throw badRequest(`${field} must be one of ${allowed.join(', ')}`);
  return value as T;
}
