import type { FreeePort } from "../../lib/slack/freee-port";

/**
 * The freee routes and App Home status, from lib/freee (owned by the freee module). Until that module exports
 * its OAuth handlers the routes answer 404 and App Home shows the status as unknown.
 */
export const freeePort: FreeePort = {};
