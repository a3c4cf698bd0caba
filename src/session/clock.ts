import { setTimeout as sleepReal } from 'node:timers/promises';

/**
 * Time for the session and the local transports. A scaled clock runs a simulated call faster
 * than real time (the sandbox accepts audio up to a minute ahead of real time), so scenario
 * tests take seconds; timings it reports are in call time.
 */
export interface Clock {
  now(): number;
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  readonly speed: number;
}

export class ScaledClock implements Clock {
  private readonly origin = Date.now();
  constructor(readonly speed = 1) {}
  now(): number {
    return this.origin + (Date.now() - this.origin) * this.speed;
  }
  async sleep(ms: number, signal?: AbortSignal): Promise<void> {
    await sleepReal(Math.max(0, ms / this.speed), undefined, signal ? { signal } : undefined);
  }
}

export const realClock = (): Clock => new ScaledClock(1);
