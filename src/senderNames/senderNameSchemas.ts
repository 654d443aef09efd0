import { Type, type Static } from 'typebox';
import { SENDER_NAME_STATUSES } from './senderNameSql.js';

/** A sender name as the APIs show it. */
export const SenderName = Type.Object({
  id: Type.Integer(),
  accountId: Type.Integer(),
  channelType: Type.String(),
  name: Type.String(),
  status: Type.Enum(SENDER_NAME_STATUSES),
  startDate: Type.Union([Type.String(), Type.Null()]),
  comment: Type.Union([Type.String(), Type.Null()]),
  managerComment: Type.Union([Type.String(), Type.Null()]),
  createdAt: Type.String(),
  updatedAt: Type.String(),
  botToken: Type.Union([Type.String(), Type.Null()], {
    description:
      "TELEGRAM: the bot token the operator attached, masked as the bot's id and an ellipsis (`123456:…`), never " +
      'shown whole; null when none is attached (a TELEGRAM name sends only once it has one) and on other channels',
  }),
});

export type SenderNameJson = Static<typeof SenderName>;
