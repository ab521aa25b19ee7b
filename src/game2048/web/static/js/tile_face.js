// How one tile's number is laid out: long numbers shrink, and numbers of seven
// or more digits break over two lines, so that even 2^37 on a 6x6 board on a
// phone stays readable.

// font size as a share of the cell, by digits on a line (bold digits are about 0.6 em wide)
const SCALE = [0, 0.5, 0.5, 0.42, 0.34, 0.28, 0.24];

/** {text, scale, exp}: the tile's text (with a line break if needed), its font size as a share of the cell, log2 of the value. */
export function tileFace(value) {
  const digits = String(value);
  const lines = digits.length > 6 ? 2 : 1;
  const perLine = Math.ceil(digits.length / lines);
  const text = lines === 1 ? digits : `${digits.slice(0, digits.length - perLine)}\n${digits.slice(-perLine)}`;
  return { text, scale: SCALE[perLine], exp: Math.round(Math.log2(value)) };
}
