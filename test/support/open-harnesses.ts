/**
 * The harnesses a test file has open, with fakes that hand out scripted replies. Kept apart from the harnesses
 * so that the per-file setup (test/setup/scripted-replies.ts) can see them without loading them into every file.
 */
export interface ScriptedFakes {
  /** Scripted Messages replies and session scripts not taken yet. */
  leftOver(): { replies: number; sessions: number };
  /** Drop what is left, so one test's leftovers never reach the next. */
  discardLeftOver(): void;
}

export const openHarnesses = new Set<ScriptedFakes>();

interface ScriptedMessages {
  pending(): number;
  discardScripts(): void;
}
interface ScriptedSessions {
  pendingSessionScripts(): number;
  discardScripts(): void;
}

/** Hold each test to what it scripted on these fakes until the returned function is called (at close). */
export function holdTestsToScripts(messages: ScriptedMessages, sessions: ScriptedSessions): () => void {
  const fakes: ScriptedFakes = {
    leftOver: () => ({ replies: messages.pending(), sessions: sessions.pendingSessionScripts() }),
    discardLeftOver: () => {
      messages.discardScripts();
      sessions.discardScripts();
    },
  };
  openHarnesses.add(fakes);
  return () => void openHarnesses.delete(fakes);
}
