-- Workers claim due messages per channel (a carrier that is slow or down fills its channel's share of a worker's
-- hands, not every place), then by traffic type, then by due time: one range scan of this index per channel and
-- type, each stopping at its limit, however many messages of a full channel or of a later type wait.
DROP INDEX messages_sending_due;
CREATE INDEX messages_sending_due ON messages (channel_type, traffic_type, due_at, id) WHERE status = 'sending';
