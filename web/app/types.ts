/** Shapes of the client API as the pages use them (see /openapi.json). */

export interface Message {
  messageUuid: string;
  createdTime: string;
  channelType: string;
  direction: string;
  senderName: string;
  destination: string;
  country: string | null;
  content: unknown;
  tags: string[];
  totalParts: number;
  price: { totalPrice: number; currency: string | null; invoicedParts: number; final: boolean };
  plannedSendTime: string | null;
  sentTime: string | null;
  statusTime: string | null;
  status: string;
  readStatus: string | null;
  errorCode: number | null;
  callbackUrl: string | null;
  callbackEvents: string[] | null;
  trafficCenterId: number | null;
  statusHistory: { status: string; at: string; errorCode?: number; detail?: string; retryAt?: string; connector?: string }[];
}

export interface Delivery {
  id: string;
  url: string;
  state: 'open' | 'delivered' | 'failed';
  replay: boolean;
  events: number;
  attempts: number | Attempt[];
  nextAttemptTime: string | null;
  lastAttemptTime: string | null;
  lastHttpStatus: number | null;
  lastError: string | null;
  createdTime: string;
  finishedTime: string | null;
}

/** One attempt of a callback delivery, in either of the shapes the API has used. */
export interface Attempt {
  at?: string;
  time?: string;
  httpStatus: number | null;
  error: string | null;
  durationMs?: number;
  latencyMs?: number;
}

export interface DeliveryDetail extends Delivery {
  attemptsLog?: Attempt[];
  body?: unknown[];
}

export interface SenderName {
  id: number;
  channelType: string;
  name: string;
  status: 'Pending' | 'Approved' | 'Rejected';
  startDate: string | null;
  comment: string | null;
  managerComment: string | null;
  createdAt: string;
}

export interface Template {
  id: number;
  channelType: string;
  templateType: string;
  pattern: string;
  senderName: string;
  dateFrom: string;
  dateTo: string | null;
  status: string;
  managerComment: string | null;
  createdAt: string;
}

export interface StatisticsGroup {
  key: string;
  messages: number;
  parts: number;
  statuses: Record<string, number>;
  price: Record<string, number>;
  clicks: number;
  conversions: number;
}

export interface Statistics {
  from: string;
  to: string;
  groupBy: string;
  items: StatisticsGroup[];
  total: StatisticsGroup;
}

export interface TrafficCenter {
  id: number;
  name: string;
  isDefault: boolean;
  createdAt: string;
}

export interface InboundRule {
  id: number;
  trafficCenterId: number;
  callbackUrl: string | null;
  senderNames: string[] | null;
  channelType: string;
  createdAt: string;
}
