/** A rendered message: both parts are complete documents, user values already escaped. */
export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html: string;
}

/** Sends mail. Embedded default: the in-app outbox; production: SMTP. */
export interface Mailer {
  readonly kind: 'outbox' | 'smtp';
  send(message: MailMessage): Promise<void>;
  close?(): Promise<void>;
}

/** Links in a message body, so the outbox log can print them for local use. */
export function extractLinks(text: string): string[] {
  const links = (text.match(/https?:\/\/[^\s<>"')]+/g) ?? []).map((l) => l.replace(/[.,;:!?]+$/, ''));
  return [...new Set(links)];
}
