// How one tile's number is laid out: long numbers shrink, and numbers of seven
// or more digits break over two lines, so that even 2^37 on a 6x6 board on a
// phone stays readable.

/** {text, scale, exp}: the tile's text (with a line break if needed), its font size as a share of the cell, log2 of the value. */
export function tileFace(value) {
  const digits = String(value);
  const lines = digits.length > 6 ? 2 : 1;
  const perLine = Math.ceil(digits.length / lines);
  const text = lines === 1 ? digits : `${digits.slice(0, digits.length - perLine)}\n${digits.slice(-perLine)}`;
  const scale = Math.min(0.5, 1.45 / perLine);
  return { text, scale: Number(scale.toFixed(3)), exp: Math.round(Math.log2(value)) };
}
