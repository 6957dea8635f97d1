// Draws the app icon (a keyhole in a rounded square) as PNGs with no image library:
// build/icon.png (1024 px, electron-builder derives the .icns and .ico from it) and
// build/icons/<size>x<size>.png for Linux. Run: node build/make-icons.mjs
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';

const here = import.meta.dirname;

function crc32(buf) {
  let c = ~0;
  for (const b of buf) {
    c ^= b;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0xedb88320 : c >>> 1;
  }
  return ~c >>> 0;
}

function chunk(type, data) {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const td = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(td));
  return Buffer.concat([len, td, crc]);
}

function png(size, pixel) {
  const rows = [];
  for (let y = 0; y < size; y++) {
    const row = Buffer.alloc(1 + size * 4);
    for (let x = 0; x < size; x++) row.set(pixel((x + 0.5) / size, (y + 0.5) / size, 1 / size), 1 + x * 4);
    rows.push(row);
  }
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(size, 0);
  ihdr.writeUInt32BE(size, 4);
  ihdr.set([8, 6, 0, 0, 0], 8); // 8-bit RGBA
  return Buffer.concat([Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]), chunk('IHDR', ihdr), chunk('IDAT', zlib.deflateSync(Buffer.concat(rows), { level: 9 })), chunk('IEND', Buffer.alloc(0))]);
}

const clamp = (v) => Math.max(0, Math.min(1, v));
// Signed distances (negative inside) in unit coordinates.
const roundedSquare = (x, y) => {
  const qx = Math.abs(x - 0.5) - 0.5 + 0.06 + 0.2;
  const qy = Math.abs(y - 0.5) - 0.5 + 0.06 + 0.2;
  return Math.hypot(Math.max(qx, 0), Math.max(qy, 0)) + Math.min(Math.max(qx, qy), 0) - 0.2;
};
const keyhole = (x, y) => {
  const circle = Math.hypot(x - 0.5, y - 0.42) - 0.13;
  const stemHalf = 0.055 + (y - 0.42) * 0.12;
  const stem = Math.max(Math.abs(x - 0.5) - stemHalf, y < 0.42 ? 1 : y - 0.72);
  return Math.min(circle, stem);
};

function pixel(x, y, px) {
  const inSquare = clamp(0.5 - roundedSquare(x, y) / px);
  const inHole = clamp(0.5 - keyhole(x, y) / px);
  // Indigo to violet from top to bottom; the keyhole is near-white.
  const t = y;
  const bg = [Math.round(79 + 45 * t), Math.round(70 - 10 * t), Math.round(229 - 10 * t)];
  const fg = [245, 243, 255];
  const rgb = bg.map((c, i) => Math.round(c * (1 - inHole) + fg[i] * inHole));
  return [...rgb, Math.round(255 * inSquare)];
}

fs.mkdirSync(path.join(here, 'icons'), { recursive: true });
fs.writeFileSync(path.join(here, 'icon.png'), png(1024, pixel));
for (const size of [16, 32, 48, 64, 128, 256, 512]) fs.writeFileSync(path.join(here, 'icons', `${size}x${size}.png`), png(size, pixel));
console.log('wrote build/icon.png and build/icons/*.png');
