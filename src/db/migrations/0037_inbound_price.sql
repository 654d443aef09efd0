-- An inbound message's price is 0 in its account's currency, and final: nothing is charged for it (DESIGN 12, a price
-- always has a currency). Inbound messages were stored without a currency and with a price never final. One pass over
-- the messages (no index has either column), as 0007 made for free outbound messages.
UPDATE messages m SET currency = a.currency, price_final = true
FROM accounts a
WHERE a.id = m.account_id AND m.direction = 'inbound' AND (m.currency IS NULL OR NOT m.price_final);
