/**
 * A promise that rejects only for whoever handles it: when nothing awaits or catches it, or a
 * promise chained off it (`then`, `catch`, `finally`, to any depth), the rejection is dropped
 * instead of ending the process (Node's default `--unhandled-rejections=throw`). For promises
 * whose failure is reported elsewhere: `runTask`'s, whose task error is an `error` event.
 */
const ignore = (): void => {};

export class DroppablePromise<T> extends Promise<T> {
  /** `promise` as a droppable one: the same outcome. */
  static of<T>(promise: Promise<T>): DroppablePromise<T> {
    const dropped = new DroppablePromise<T>((resolve, reject) => promise.then(resolve, reject));
    Promise.prototype.then.call(dropped, undefined, ignore);
    return dropped;
  }

  // Each promise chained off this one is a DroppablePromise too (the species), marked handled
  // here with the base `then`, which does not come back to this override.
  override then<R1 = T, R2 = never>(
    onfulfilled?: ((value: T) => R1 | PromiseLike<R1>) | null,
    onrejected?: ((reason: unknown) => R2 | PromiseLike<R2>) | null,
  ): Promise<R1 | R2> {
    const chained = super.then(onfulfilled, onrejected);
    Promise.prototype.then.call(chained, undefined, ignore);
    return chained;
  }
}
