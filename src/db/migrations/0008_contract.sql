-- Issue 11, the contract: one conversion per message, and a default traffic center for every account.

-- A second conversion report for a message replaces the first, and statistics count one. Days already
-- rolled up that counted duplicates are marked dirty, so that the next maintenance run counts them again.
INSERT INTO stats_dirty_days (account_id, day)
SELECT DISTINCT m.account_id, (m.created_at AT TIME ZONE 'UTC')::date
FROM (
  SELECT account_id, message_id FROM flashcall_conversions GROUP BY account_id, message_id HAVING count(*) > 1
) d
JOIN messages m ON m.account_id = d.account_id AND m.id = d.message_id
CROSS JOIN stats_rollup_state r
WHERE (m.created_at AT TIME ZONE 'UTC')::date <= r.rolled_until
ON CONFLICT DO NOTHING;

-- Each message keeps its newest report (the latest created_at, then the latest id).
DELETE FROM flashcall_conversions c
USING flashcall_conversions newer
WHERE newer.account_id = c.account_id AND newer.message_id = c.message_id
  AND (newer.created_at, newer.id) > (c.created_at, c.id);

DROP INDEX flashcall_conversions_message;
CREATE UNIQUE INDEX flashcall_conversions_message ON flashcall_conversions (account_id, message_id);

-- Every account has a default traffic center from its creation; accounts made before get theirs now.
INSERT INTO traffic_centers (account_id, name, is_default, created_at, updated_at)
SELECT a.id, 'Default', true, now(), now()
FROM accounts a
WHERE NOT EXISTS (SELECT 1 FROM traffic_centers c WHERE c.account_id = a.id AND c.is_default);
