/** Carrier ids remembered per SMSC account shared by several connectors; beyond it the oldest are forgotten. */
export const SIBLING_IDS_REMEMBERED = 200_000;

/**
 * Connectors of one process bound to the same SMSC account (host, port and system_id): an SMSC sends a receipt on
 * any bind of the account, so a receipt for one connector's message may arrive on another's. While an account has
 * several connectors, each notes the ids of the parts it submitted here, and a receipt is reported under the
 * connector that submitted its part. The ids are forgotten at their final receipt, or, oldest first, beyond
 * {@link SIBLING_IDS_REMEMBERED}; a receipt for an id not remembered (sent before a restart) stays with the connector
 * it came to. Several `sessions` of one connector need none of this.
 */
export class SiblingConnectors {
  private readonly members = new Set<string>();
  private readonly submittedBy = new Map<string, string>();

  join(connectorId: string): void {
    this.members.add(connectorId);
  }

  /** Notes the carrier ids a connector submitted (only while the account has several connectors). */
  submitted(connectorId: string, carrierIds: readonly string[]): void {
    if (this.members.size < 2) return;
    for (const id of carrierIds) this.submittedBy.set(id, connectorId);
    for (const id of this.submittedBy.keys()) {
      if (this.submittedBy.size <= SIBLING_IDS_REMEMBERED) break;
      this.submittedBy.delete(id);
    }
  }

  /** The connector whose part a receipt reports on, forgetting it when the receipt is final. */
  owner(carrierId: string, final: boolean): string | undefined {
    const owner = this.submittedBy.get(carrierId);
    if (final) this.submittedBy.delete(carrierId);
    return owner;
  }
}

const accounts = new Map<string, SiblingConnectors>();

/** The siblings of a connector's SMSC account in this process, which it joins. */
export function joinSmscAccount(
  account: { host: string; port: number; systemId: string },
  connectorId: string,
): SiblingConnectors {
  const key = JSON.stringify([account.host.toLowerCase(), account.port, account.systemId]);
  let siblings = accounts.get(key);
  if (!siblings) {
    siblings = new SiblingConnectors();
    accounts.set(key, siblings);
  }
  siblings.join(connectorId);
  return siblings;
}
