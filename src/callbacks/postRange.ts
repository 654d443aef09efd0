/**
 * Which events of a lane's range belong to a POST (SQL over `e`, an event, and `d`, the POST): all of
 * them, or only those of `only_messages`, or all but those of `excluded_messages`.
 */
export const inPost = (e: string, d: string): string =>
  `${e}.target_id = ${d}.target_id AND ${e}.lane = ${d}.lane
   AND (${e}.txid, ${e}.id) > (${d}.after_txid, ${d}.after_event_id)
   AND (${e}.txid, ${e}.id) <= (${d}.last_txid, ${d}.last_event_id)
   AND (${d}.only_messages IS NULL OR ${e}.message_id = ANY(${d}.only_messages))
   AND (${d}.excluded_messages IS NULL OR NOT ${e}.message_id = ANY(${d}.excluded_messages))`;
