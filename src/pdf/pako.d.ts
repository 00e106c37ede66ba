// The part of pako 1.x (a pure-JavaScript zlib) that decode-budget.ts uses: an inflater fed
// synchronously, handing its output over in chunks as it goes. pako ships no types.
declare module 'pako' {
  export class Inflate {
    constructor(options?: { chunkSize?: number; raw?: boolean });
    /** Called with each chunk of output; the default keeps them all, which is what we avoid. */
    onData: (chunk: Uint8Array) => void;
    onEnd: (status: number) => void;
    /** false once the data is found broken (`err` says why); `last` ends the input. */
    push(data: Uint8Array, last: boolean): boolean;
    err: number;
    ended: boolean;
  }
  const pako: { Inflate: typeof Inflate };
  export default pako;
}
