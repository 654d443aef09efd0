import type { MessageFilter } from '../../src/messages/messageLookupSql.js';

/** A filter of the message list that filters nothing but what `given` says. */
export function messageFilter(given: Partial<MessageFilter> = {}): MessageFilter {
  return {
    fromId: null,
    toId: null,
    messageUuid: null,
    destination: null,
    status: null,
    tags: null,
    channelType: null,
    senderName: null,
    trafficCenterId: null,
    direction: null,
    content: null,
    readStatus: [],
    sendingMethod: null,
    templateId: null,
    country: null,
    cascadeId: null,
    root: null,
    trafficType: null,
    dispatchId: null,
    errorCode: null,
    ...given,
  };
}
