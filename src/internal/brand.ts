/**
 * `instanceof` across copies of the package: the ESM and CommonJS builds are two copies with classes of their own,
 * and an app that mixes the two loads both. Each SDK error class carries a brand, the name it is exported under, on
 * its prototype; `AvatarVideoError[Symbol.hasInstance]` matches by prototype as usual or by that brand. A leaf
 * module, so that `avatar-video/bullmq` can brand its own error class without bundling a copy of `errors.ts`.
 */

/** The brand's property key. `Symbol.for` gives every copy of the package in a process the same key. */
const BRAND = Symbol.for('avatar-video.error');

type Branded = { [BRAND]: string };

/** Brand each class with the name it is exported under (a property key, which no minifier renames). */
export function brandClasses(classes: Record<string, abstract new (...args: never[]) => Error>): void {
  for (const [name, errorClass] of Object.entries(classes)) {
    Object.defineProperty(errorClass.prototype, BRAND, { value: name });
  }
}

/** `value instanceof errorClass`: by prototype as usual, or for a branded class, by the brand of another copy's class. */
export function isInstance(errorClass: abstract new (...args: never[]) => Error, value: unknown): boolean {
  if (Function.prototype[Symbol.hasInstance].call(errorClass, value)) return true;
  const prototype: unknown = errorClass?.prototype;
  return Object.hasOwn(Object(prototype), BRAND) && hasBrand(value, (prototype as Branded)[BRAND]);
}

/** Whether a prototype in `value`'s chain carries `brand`. */
function hasBrand(value: unknown, brand: string): boolean {
  if (typeof value !== 'object' || value === null) return false;
  for (let proto: unknown = Object.getPrototypeOf(value); proto !== null; proto = Object.getPrototypeOf(proto)) {
    if (Object.hasOwn(Object(proto), BRAND) && (proto as Branded)[BRAND] === brand) return true;
  }
  return false;
}
