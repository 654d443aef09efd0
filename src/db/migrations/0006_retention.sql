-- Retention (HERALD_RETENTION_DAYS) deletes submissions by age. A BRIN index: submissions are appended in time
-- order, so a few pages per block range find the old ones, at next to no cost on the insert path.
CREATE INDEX submissions_created_brin ON submissions USING brin (created_at);
