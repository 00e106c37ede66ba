// A one-line progress bar for long commands, drawn on a terminal only; elsewhere it
// prints nothing so logs and pipes stay clean.
import type { WriteStream } from 'node:tty';

export function createProgressBar(stream: NodeJS.WriteStream | WriteStream, total: number) {
  const enabled = stream.isTTY === true && total >= 1000;
  const width = 30;
  const started = Date.now();
  let drawn = false;
  return {
    update(done: number) {
      if (!enabled) return;
      const ratio = total === 0 ? 1 : done / total;
      const filled = Math.round(ratio * width);
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      stream.write(
        `\r[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${Math.floor(ratio * 100)}% ${done}/${total} ${seconds}s`,
      );
      drawn = true;
    },
    done() {
      if (drawn) stream.write('\n');
    },
  };
}
