/**
 * Draws Collie's app icons (P-26) and writes them as PNG files, with no dependency: a minimal PNG
 * encoder over node:zlib (deflate and crc32). The output is committed; run again after a change:
 *
 *   node web/scripts/make-icons.ts
 *
 * The picture: a white speech bubble with three dots on Collie's green, drawn inside the central
 * 80 % circle, so the same file serves as a `maskable` icon (the platform may crop to a circle).
 */
import { deflateSync, crc32 } from "node:zlib";
import { mkdirSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

type RGB = readonly [number, number, number];

const BRAND: RGB = [0x1f, 0x6f, 0x5c];
const WHITE: RGB = [0xff, 0xff, 0xff];
const ACCENT: RGB = [0xc2, 0x41, 0x0c];

/** A PNG chunk: length, type, data, CRC of type and data. */
function chunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, "ascii");
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])) >>> 0, 0);
  return Buffer.concat([head, data, crc]);
}

/** Encodes 8-bit RGB pixels (width × height × 3 bytes, row by row) as a PNG. */
export function encodePng(width: number, height: number, rgb: Uint8Array): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 2; // colour type: truecolour
  ihdr[10] = 0; // deflate
  ihdr[11] = 0; // adaptive filtering
  ihdr[12] = 0; // no interlace
  // Each scanline starts with its filter type; 0 (none) keeps the encoder trivial.
  const raw = Buffer.alloc((width * 3 + 1) * height);
  for (let y = 0; y < height; y++) {
    const row = y * (width * 3 + 1);
    raw[row] = 0;
    raw.set(rgb.subarray(y * width * 3, (y + 1) * width * 3), row + 1);
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", ihdr),
    chunk("IDAT", deflateSync(raw, { level: 9 })),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}

/** Signed distance to a rounded rectangle centred at (cx, cy) (negative inside). */
function roundedRect(x: number, y: number, cx: number, cy: number, hw: number, hh: number, r: number): number {
  const qx = Math.abs(x - cx) - (hw - r);
  const qy = Math.abs(y - cy) - (hh - r);
  return Math.hypot(Math.max(qx, 0), Math.max(qy, 0)) + Math.min(Math.max(qx, qy), 0) - r;
}

/** True inside a triangle (the bubble's tail). */
function inTriangle(px: number, py: number, a: [number, number], b: [number, number], c: [number, number]): boolean {
  const s = (p: [number, number], q: [number, number]) => (px - q[0]) * (p[1] - q[1]) - (p[0] - q[0]) * (py - q[1]);
  const d1 = s(a, b), d2 = s(b, c), d3 = s(c, a);
  const neg = d1 < 0 || d2 < 0 || d3 < 0;
  const pos = d1 > 0 || d2 > 0 || d3 > 0;
  return !(neg && pos);
}

/** The colour at a point of the unit square (0..1). */
function shade(x: number, y: number): RGB {
  const dots = [0.36, 0.5, 0.64];
  for (const [i, dx] of dots.entries()) {
    if (Math.hypot(x - dx, y - 0.45) < 0.045) return i === 2 ? ACCENT : BRAND;
  }
  if (roundedRect(x, y, 0.5, 0.45, 0.25, 0.17, 0.08) < 0) return WHITE;
  if (inTriangle(x, y, [0.36, 0.58], [0.48, 0.58], [0.34, 0.7])) return WHITE;
  return BRAND;
}

/** Draws the icon at a size, 4×4 samples per pixel for smooth edges. */
export function drawIcon(size: number): Buffer {
  const rgb = new Uint8Array(size * size * 3);
  const n = 4;
  for (let py = 0; py < size; py++) {
    for (let px = 0; px < size; px++) {
      let r = 0, g = 0, b = 0;
      for (let sy = 0; sy < n; sy++) {
        for (let sx = 0; sx < n; sx++) {
          const c = shade((px + (sx + 0.5) / n) / size, (py + (sy + 0.5) / n) / size);
          r += c[0];
          g += c[1];
          b += c[2];
        }
      }
      const o = (py * size + px) * 3;
      rgb[o] = Math.round(r / (n * n));
      rgb[o + 1] = Math.round(g / (n * n));
      rgb[o + 2] = Math.round(b / (n * n));
    }
  }
  return encodePng(size, size, rgb);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const dir = fileURLToPath(new URL("../public/icons/", import.meta.url));
  mkdirSync(dir, { recursive: true });
  for (const size of [192, 512]) {
    const file = `${dir}icon-${size}.png`;
    writeFileSync(file, drawIcon(size));
    console.log(`wrote ${file}`);
  }
}
