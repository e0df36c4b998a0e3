import type { Logger } from './logger.js';

/**
 * Renames already warned about, per logger (one per client): each once, however many calls pass the old name. Per
 * client rather than per process, so that what one client is told does not depend on what another did before.
 */
const warned = new WeakMap<object, Set<string>>();

/**
 * The value of option `newName`, or of its deprecated alias `oldName` when only that one is given (the new name
 * wins when both are), with one warning through `logger` that `oldName` is going.
 */
export function deprecatedOption<O extends object, Old extends keyof O & string, New extends keyof O & string>(
  options: O,
  oldName: Old,
  newName: New,
  logger: Pick<Logger, 'warn'>,
): O[New] | O[Old] {
  const old = options[oldName];
  if (old === undefined) return options[newName];
  const pair = `${oldName}>${newName}`;
  const told = warned.get(logger) ?? new Set<string>();
  warned.set(logger, told);
  if (!told.has(pair)) {
    told.add(pair);
    logger.warn(`the option ${oldName} is deprecated and will be removed in the next minor version: use ${newName}`);
  }
  return options[newName] ?? old;
}
