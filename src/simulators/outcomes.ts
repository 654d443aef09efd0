/**
 * What the simulators do with a message, by the last digit of its destination:
 * 0-5 delivered (VIBER/VK/WHATSAPP: then read); 6 delivered, never read; 7 undelivered; 8 rejected by the carrier
 * at submission; 9 no receipt ever.
 */
export type SimOutcome = 'delivered-read' | 'delivered' | 'undelivered' | 'rejected' | 'silent';

export function outcomeOf(destination: string): SimOutcome {
  const digit = destination.at(-1);
  switch (digit) {
    case '6':
      return 'delivered';
    case '7':
      return 'undelivered';
    case '8':
      return 'rejected';
    case '9':
      return 'silent';
    default:
      return 'delivered-read';
  }
}

/** The error code the simulators report for an undelivered message (SMPP receipt `err:`, provider errorCode). */
export const SIM_UNDELIVERED_ERROR = 1;
