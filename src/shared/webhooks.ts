// A webhook and a delivery of it as the admin API answers with them (the GraphQL types Webhook and WebhookDelivery):
// the store keeps them in this form, the admin web application reads them back. Compiled for the browser too:
// nothing here may use Node or do I/O.

export const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** What a webhook is set to: given when it is created, each of them changed by an update. */
export interface WebhookSettings {
  url: string;
  events: string[];
  /** null: every model. */
  modelIds: string[] | null;
  description: string | null;
  active: boolean;
}

export interface Webhook extends WebhookSettings {
  id: string;
  createdAt: string;
  updatedAt: string;
}

/** One event sent to one webhook (the webhook is the one it was asked of), with its retries. */
export interface WebhookDelivery {
  id: string;
  eventId: string;
  eventType: string;
  status: DeliveryStatus;
  attempts: number;
  lastStatusCode: number | null;
  lastError: string | null;
  /** How long the last attempt took, milliseconds; null before the first. */
  duration: number | null;
  nextAttemptAt: string | null;
  createdAt: string;
  updatedAt: string;
}
