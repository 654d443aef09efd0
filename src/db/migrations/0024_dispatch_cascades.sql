-- Dispatches whose destinations each get a cascade (dispatches/, cascades/). dispatches.cascade: the cascade as the
-- client gave it ({fields, steps}: its common fields and its steps with their {placeholders}), validated again for
-- each destination with its substitutions; null for a dispatch of plain messages. cascades.dispatch_id: the dispatch
-- a cascade was created for; each of its steps' messages carries the dispatch's id too.
ALTER TABLE dispatches ADD COLUMN cascade jsonb;
ALTER TABLE cascades ADD COLUMN dispatch_id uuid;
CREATE INDEX cascades_dispatch ON cascades (account_id, dispatch_id) WHERE dispatch_id IS NOT NULL;
