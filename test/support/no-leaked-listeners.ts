// Vitest setup file (vitest.config.ts): a MaxListenersExceededWarning anywhere in a test file fails that file,
// with the stack of the listener that went over the limit. Listeners added to long-lived signals and streams
// must be removed when their request ends (issue 19).
import { afterAll } from 'vitest';

const leaks: Error[] = [];
const onWarning = (warning: Error) => {
  if (warning.name === 'MaxListenersExceededWarning') leaks.push(warning);
};
process.on('warning', onWarning);

afterAll(() => {
  process.off('warning', onWarning);
  if (leaks.length > 0) {
    throw new Error(
      `${leaks.length} MaxListenersExceededWarning: ${leaks.map((w) => `${w.message}\n${w.stack ?? ''}`).join('\n---\n')}`,
    );
  }
});
