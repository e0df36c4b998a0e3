import { styleText } from 'node:util';

type Style = Parameters<typeof styleText>[0];

/**
 * Colour only for a terminal, and never when NO_COLOR is set to anything but the empty string
 * (https://no-color.org). Node 20's styleText does not check either itself.
 */
export function painter(stream: NodeJS.WriteStream): (style: Style, text: string) => string {
  const noColor = process.env.NO_COLOR !== undefined && process.env.NO_COLOR !== '';
  const enabled = Boolean(stream.isTTY) && !noColor;
  return (style, text) => (enabled ? styleText(style, text) : text);
}
