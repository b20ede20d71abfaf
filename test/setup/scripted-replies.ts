import { afterEach } from "vitest";
import { TEST_LIMIT_MS } from "./limits";
import { openHarnesses } from "../support/open-harnesses";

/**
 * A harness is shared by the tests of a file, and its fakes hand out scripted replies first come, first served.
 * A test that ends while one of its executions still runs (waiting on a metric, say, before its next model call)
 * would let that execution take the next test's reply, and the next test would fail as if the product had.
 * So each test ends only once everything it scripted was taken; a reply nobody took within the test limit fails
 * the test that scripted it, instead of the one after. That wait is this hook's one clock (a loaded machine may
 * take long to reach the last call): the hook's own limit is set past it, only to end a hook that hangs otherwise.
 */
const SETTLE_MS = TEST_LIMIT_MS;

afterEach(async () => {
  for (const fakes of openHarnesses) {
    const deadline = Date.now() + SETTLE_MS;
    let left = fakes.leftOver();
    while (left.replies + left.sessions > 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      left = fakes.leftOver();
    }
    if (left.replies + left.sessions > 0) {
      fakes.discardLeftOver();
      throw new Error(`this test scripted ${left.replies} Messages replies and ${left.sessions} agent sessions that nothing took within ${SETTLE_MS / 1000} s; they were dropped so the next test does not get them`);
    }
  }
}, SETTLE_MS + 10_000);
