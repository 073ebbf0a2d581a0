/**
 * Wraps an async task so that calls made while it runs collapse into one more run after it:
 * a burst of live-reload events costs two fetches, not one per event, and the last run sees
 * the latest state.
 */
export function coalesced(task: () => Promise<void>): () => Promise<void> {
  let running = false;
  let again = false;
  const run = async (): Promise<void> => {
    if (running) {
      again = true;
      return;
    }
    running = true;
    try {
      await task();
    } finally {
      running = false;
      if (again) {
        again = false;
        void run();
      }
    }
  };
  return run;
}
