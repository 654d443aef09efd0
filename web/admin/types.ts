/** Shapes of the operator API as the console uses them (see /openapi.json). */

export interface Account {
  id: number;
  name: string;
  status: 'active' | 'blocked';
  currency: string;
  channels: Record<string, boolean>;
  inbound: boolean;
  creditLimit: number;
  balance: Record<string, number>;
  createdAt: string;
}

export interface LedgerEntry {
  id: number;
  currency: string;
  amount: number;
  kind: string;
  reference: string | null;
  comment: string | null;
  createdAt: string;
}

export interface User {
  id: number;
  accountId: number;
  login: string;
  createdAt: string;
}

export interface SenderName {
  id: number;
  accountId: number;
  channelType: string;
  name: string;
  status: string;
  startDate: string | null;
  comment: string | null;
  createdAt: string;
}

export interface Template {
  id: number;
  accountId: number;
  channelType: string;
  templateType: string;
  pattern: string;
  senderName: string;
  dateFrom: string;
  dateTo: string | null;
  status: string;
  createdAt: string;
}

export interface Tariff {
  id: number;
  accountId: number | null;
  channelType: string;
  prefix: string | null;
  country: string | null;
  price: number;
  currency: string;
  source: string;
  createdAt: string;
}

export interface Connector {
  id: string;
  type: string;
  channel: string;
  process: string;
  available: boolean;
  state: string;
  inFlight: number;
  window: number;
  mps: number | null;
  submitted: number;
  submitRate: number;
  lastError: string | null;
  updatedAt: string;
  stale: boolean;
}

export interface Connectors {
  items: Connector[];
  queue: { state: string; messages: number; oldestAgeSeconds: number | null }[];
}
