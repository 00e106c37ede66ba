// The bounded decoders of the decode budget (decode-budget.ts), one table by filter name: the
// filters a reader decodes byte for byte (Flate by pako, LZW, RunLength, ASCIIHex, ASCII85),
// each keeping none of its output but handing it on 64 KB at a time (the budget counts it),
// stopping at its own end marker, and decoding a prefix of its input to a prefix of its output.
// Memory: 64 KB of output and LZW's 4,096-entry table, whatever the stream.
import pako from 'pako';
import type { Value } from './stream-scan.ts';
import { hexValue } from './syntax.ts';

export type Emit = (chunk: Uint8Array) => void;

export interface Decoder {
  push(chunk: Uint8Array): void;
  end(): void;
  /** True once the data's end (or an error) is reached: more input changes nothing. */
  finished(): boolean;
}

/** Collects output bytes and hands them on 64 KB at a time (the receiver keeps none). */
class Output {
  private readonly buffer = new Uint8Array(64 * 1024);
  private used = 0;
  private readonly emit: Emit;
  constructor(emit: Emit) {
    this.emit = emit;
  }
  byte(value: number): void {
    this.buffer[this.used++] = value;
    if (this.used === this.buffer.length) this.flush();
  }
  flush(): void {
    if (this.used === 0) return;
    const used = this.used;
    this.used = 0;
    this.emit(this.buffer.subarray(0, used));
  }
}

function flateDecoder(emit: Emit): Decoder {
  const inflate = new pako.Inflate({ chunkSize: 64 * 1024 });
  inflate.onData = emit;
  inflate.onEnd = () => {};
  let done = false;
  return {
    push(chunk) {
      // A broken or finished stream stops here: what it produced is what readers get.
      if (!done && !inflate.push(chunk, false)) done = true;
      if (inflate.ended || inflate.err) done = true;
    },
    end() {
      if (!done) inflate.push(new Uint8Array(0), true);
    },
    finished: () => done,
  };
}

function lzwDecoder(emit: Emit, earlyChange: number): Decoder {
  const out = new Output(emit);
  const prefix = new Int32Array(4096);
  const suffix = new Uint8Array(4096);
  const lengths = new Uint16Array(4096);
  const firsts = new Uint8Array(4096);
  const stack = new Uint8Array(4096);
  for (let c = 0; c < 256; c++) {
    suffix[c] = c;
    lengths[c] = 1;
    firsts[c] = c;
    prefix[c] = -1;
  }
  let next = 258;
  let codeLength = 9;
  let previous = -1;
  let bits = 0;
  let bitCount = 0;
  let done = false;
  const write = (code: number) => {
    const length = lengths[code] as number;
    let c = code;
    for (let k = length - 1; k >= 0; k--) {
      stack[k] = suffix[c] as number;
      c = prefix[c] as number;
    }
    for (let k = 0; k < length; k++) out.byte(stack[k] as number);
  };
  const handle = (code: number) => {
    if (code === 256) {
      next = 258;
      codeLength = 9;
      previous = -1;
      return;
    }
    if (code === 257) {
      done = true;
      return;
    }
    if (previous === -1) {
      if (code > 255) {
        done = true;
        return;
      }
      write(code);
      previous = code;
      return;
    }
    if (code > next) {
      done = true;
      return;
    }
    const first = code < next ? (firsts[code] as number) : (firsts[previous] as number);
    if (next < 4096) {
      prefix[next] = previous;
      suffix[next] = first;
      lengths[next] = Math.min(4095, (lengths[previous] as number) + 1);
      firsts[next] = firsts[previous] as number;
      next++;
    }
    write(code);
    previous = code;
    if (next + earlyChange >= 1 << codeLength && codeLength < 12) codeLength++;
  };
  return {
    push(chunk) {
      for (let k = 0; k < chunk.length && !done; k++) {
        bits = ((bits << 8) | (chunk[k] as number)) & 0xffffff;
        bitCount += 8;
        while (bitCount >= codeLength && !done) {
          const code = (bits >>> (bitCount - codeLength)) & ((1 << codeLength) - 1);
          bitCount -= codeLength;
          handle(code);
        }
      }
      out.flush();
    },
    end() {
      out.flush();
    },
    finished: () => done,
  };
}

function runLengthDecoder(emit: Emit): Decoder {
  const out = new Output(emit);
  let literal = 0;
  let repeat = 0;
  let done = false;
  return {
    push(chunk) {
      for (let k = 0; k < chunk.length && !done; k++) {
        const b = chunk[k] as number;
        if (literal > 0) {
          out.byte(b);
          literal--;
        } else if (repeat > 0) {
          for (let n = 0; n < repeat; n++) out.byte(b);
          repeat = 0;
        } else if (b < 128) literal = b + 1;
        else if (b > 128) repeat = 257 - b;
        else done = true;
      }
      out.flush();
    },
    end() {
      out.flush();
    },
    finished: () => done,
  };
}

function asciiHexDecoder(emit: Emit): Decoder {
  const out = new Output(emit);
  let high = -1;
  let done = false;
  return {
    push(chunk) {
      for (let k = 0; k < chunk.length && !done; k++) {
        const b = chunk[k] as number;
        if (b === 0x3e) done = true;
        const value = hexValue(b);
        if (value < 0) continue;
        if (high < 0) high = value;
        else {
          out.byte(high * 16 + value);
          high = -1;
        }
      }
      out.flush();
    },
    end() {
      if (high >= 0 && !done) out.byte(high * 16);
      out.flush();
    },
    finished: () => done,
  };
}

function ascii85Decoder(emit: Emit): Decoder {
  const out = new Output(emit);
  const group: number[] = [];
  let done = false;
  const flushGroup = (count: number) => {
    let value = 0;
    for (let k = 0; k < 5; k++) value = value * 85 + (k < group.length ? (group[k] as number) : 84);
    for (let k = 0; k < count; k++) out.byte(Math.floor(value / 256 ** (3 - k)) % 256);
    group.length = 0;
  };
  return {
    push(chunk) {
      for (let k = 0; k < chunk.length && !done; k++) {
        const b = chunk[k] as number;
        if (b === 0x7e) {
          done = true;
          if (group.length > 1) flushGroup(group.length - 1);
        } else if (b === 0x7a && group.length === 0) {
          for (let n = 0; n < 4; n++) out.byte(0);
        } else if (b >= 0x21 && b <= 0x75) {
          group.push(b - 0x21);
          if (group.length === 5) flushGroup(4);
        }
      }
      out.flush();
    },
    end() {
      if (!done && group.length > 1) flushGroup(group.length - 1);
      out.flush();
    },
    finished: () => done,
  };
}

export const imageFilters = new Set([
  'DCTDecode',
  'DCT',
  'JPXDecode',
  'JBIG2Decode',
  'CCITTFaxDecode',
  'CCF',
]);

/**
 * The decoders of the filters a reader decodes byte for byte, by every name the filter goes
 * by. Image filters are bounded by their pixels instead; Crypt and unknown filters end the
 * chain (readers cannot go further either).
 */
export type DecoderFactory = (emit: Emit, parms: Value | undefined) => Decoder;
const lzw: DecoderFactory = (emit, parms) => {
  const early = parms instanceof Map ? parms.get('EarlyChange') : undefined;
  return lzwDecoder(emit, early === 0 ? 0 : 1);
};
export const decoderFactories = new Map<string, DecoderFactory>([
  ['FlateDecode', flateDecoder],
  ['Fl', flateDecoder],
  ['LZWDecode', lzw],
  ['LZW', lzw],
  ['RunLengthDecode', runLengthDecoder],
  ['RL', runLengthDecoder],
  ['ASCIIHexDecode', asciiHexDecoder],
  ['AHx', asciiHexDecoder],
  ['ASCII85Decode', ascii85Decoder],
  ['A85', ascii85Decoder],
]);
