/** Email templates: every value that came from a user is escaped before it reaches HTML. */

export interface MailContent {
  subject: string;
  text: string;
  html: string;
}

const HTML_ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c] ?? c);
}

/** Tagged template that escapes every interpolated value. */
function html(strings: TemplateStringsArray, ...values: Array<string | SafeHtml>): SafeHtml {
  let out = strings[0] ?? '';
  values.forEach((v, i) => {
    out += (v instanceof SafeHtml ? v.value : escapeHtml(v)) + (strings[i + 1] ?? '');
  });
  return new SafeHtml(out);
}
class SafeHtml {
  constructor(readonly value: string) {}
}

function layout(title: string, body: SafeHtml): string {
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <title>${title}</title>
      </head>
      <body style="font-family:Arial,Helvetica,sans-serif;color:#1f2937;background:#f8fafc;padding:24px">
        <div
          style="max-width:560px;margin:0 auto;background:#ffffff;border:1px solid #e5e7eb;border-radius:8px;padding:24px"
        >
          <p style="font-weight:bold;color:#0f4c81;margin-top:0">Medical Imaging</p>
          ${body}
        </div>
      </body>
    </html>`.value;
}

function button(href: string, label: string): SafeHtml {
  return html`<p>
    <a
      href="${href}"
      style="display:inline-block;background:#0f4c81;color:#ffffff;padding:10px 16px;border-radius:6px;text-decoration:none"
      >${label}</a
    >
  </p>`;
}

/**
 * Sent at registration. Carries the email-confirmation link; a professional is told that an
 * admin reviews the application first.
 */
export function welcomeEmail(p: {
  name: string;
  appUrl: string;
  verifyLink?: string;
  verifyHours?: number;
  pending?: boolean;
}): MailContent {
  const subject = 'Welcome to Medical Imaging';
  const intro = p.pending
    ? 'Thank you for applying for a Medical Imaging professional account. An administrator will verify your licence; we will email you once your application has been reviewed.'
    : 'Your Medical Imaging account is ready. Sign in to upload and view your studies.';
  const confirmText = p.verifyLink
    ? `\n\nPlease confirm your email address: ${p.verifyLink}\nThe link works once and expires in ${p.verifyHours ?? 48} hours. Until you confirm it, studies that other people share or transfer to this address cannot reach your account.`
    : '';
  return {
    subject,
    text: `Hello ${p.name},\n\n${intro}${p.pending ? '' : ` Sign in at ${p.appUrl}/login.`}${confirmText}\n\nIf you did not create this account, reply to this message.`,
    html: layout(
      subject,
      html`<p>Hello ${p.name},</p>
        <p>${intro}</p>
        ${
          p.verifyLink
            ? html`<p>Please confirm your email address.</p>
                ${button(p.verifyLink, 'Confirm email address')}
                <p style="color:#6b7280;font-size:13px">
                  The link works once and expires in ${String(p.verifyHours ?? 48)} hours. Until you confirm
                  it, studies that other people share or transfer to this address cannot reach your account.
                </p>`
            : html``
        }${p.pending ? html`` : button(`${p.appUrl}/login`, 'Sign in')}
        <p style="color:#6b7280;font-size:13px">
          If you did not create this account, reply to this message.
        </p>`,
    ),
  };
}

/** Sent to an address's owner when someone tries to register it again; the form itself reveals nothing. */
export function duplicateRegistrationEmail(p: { appUrl: string }): MailContent {
  const subject = 'Someone tried to register with your email';
  return {
    subject,
    text: `Someone tried to create a Medical Imaging account with this email address, which already has an account.\n\nIf it was you, sign in at ${p.appUrl}/login or reset your password at ${p.appUrl}/forgot-password.\nIf it was not you, you can ignore this message; your account has not changed.`,
    html: layout(
      subject,
      html`<p>
          Someone tried to create a Medical Imaging account with this email address, which already has an
          account.
        </p>
        <p>If it was you, sign in or reset your password.</p>
        ${button(`${p.appUrl}/login`, 'Sign in')}
        <p><a href="${p.appUrl}/forgot-password">Reset your password</a></p>
        <p style="color:#6b7280;font-size:13px">
          If it was not you, you can ignore this message; your account has not changed.
        </p>`,
    ),
  };
}

const note = (text: string) => html`<p style="color:#6b7280;font-size:13px">${text}</p>`;

/** The emailed second factor. The code is the only secret in it; it works with the pending sign-in only. */
export function mfaCodeEmail(p: { code: string; minutes: number }): MailContent {
  const subject = 'Your Medical Imaging verification code';
  return {
    subject,
    text: `Your verification code is ${p.code}\n\nIt expires in ${p.minutes} minutes and works once. If you did not try to sign in, change your password.`,
    html: layout(
      subject,
      html`<p>Your verification code is</p>
        <p style="font-size:28px;font-weight:bold;letter-spacing:6px">${p.code}</p>
        <p>It expires in ${String(p.minutes)} minutes and works once.</p>
        ${note('If you did not try to sign in, change your password.')}`,
    ),
  };
}

export function passwordResetEmail(p: { link: string; minutes: number }): MailContent {
  const subject = 'Reset your Medical Imaging password';
  return {
    subject,
    text: `Someone asked to reset the password of this Medical Imaging account.\n\nTo choose a new password, open: ${p.link}\n\nThe link works once and expires in ${p.minutes} minutes. If you did not ask for it, ignore this message; your password has not changed.`,
    html: layout(
      subject,
      html`<p>Someone asked to reset the password of this Medical Imaging account.</p>
        ${button(p.link, 'Choose a new password')}
        <p>The link works once and expires in ${String(p.minutes)} minutes.</p>
        ${note('If you did not ask for it, ignore this message; your password has not changed.')}`,
    ),
  };
}

/** The one-time link that lets the owner sign in while failed attempts have locked their account. */
export function signInUnlockEmail(p: { link: string; minutes: number }): MailContent {
  const subject = 'Sign-in attempts on your Medical Imaging account';
  const text = `Someone tried to sign in to your account with a wrong password many times, so sign-ins from new browsers are paused for 15 minutes.\n\nIf that was you, open this link in the browser you want to use (it works once, for ${p.minutes} minutes), then sign in as usual:\n${p.link}\n\nIf it was not you, nothing was reached: your password was not accepted. Consider choosing a longer password in Settings.`;
  const body = html`<p>
      Someone tried to sign in to your account with a wrong password many times, so sign-ins from new browsers
      are paused for 15 minutes.
    </p>
    <p>
      If that was you, open this link in the browser you want to use (it works once, for ${String(p.minutes)}
      minutes), then sign in as usual:
    </p>
    ${button(p.link, 'Sign in from this browser')}
    <p>If it was not you, nothing was reached: your password was not accepted.</p>`;
  return { subject, text, html: layout(subject, body) };
}

/**
 * Sent whenever the password changes: by a reset link (every session signed out) or in Settings
 * (the other sessions signed out).
 */
export function passwordChangedEmail(p: { appUrl: string; how?: 'reset' | 'settings' }): MailContent {
  const subject = 'Your Medical Imaging password was changed';
  const what =
    p.how === 'settings'
      ? 'The password of your Medical Imaging account was just changed in Settings, and your other sessions were signed out.'
      : 'The password of your Medical Imaging account was just reset, and every session was signed out.';
  return {
    subject,
    text: `${what}\n\nIf this was not you, reset it again at ${p.appUrl}/forgot-password and contact support.`,
    html: layout(
      subject,
      html`<p>${what}</p>
        ${note('If this was not you, reset it again and contact support.')}${button(
          `${p.appUrl}/forgot-password`,
          'Reset password',
        )}`,
    ),
  };
}

export function verifyEmailEmail(p: { name: string; link: string; hours: number }): MailContent {
  const subject = 'Confirm your email address';
  return {
    subject,
    text: `Hello ${p.name},\n\nPlease confirm that this is your email address: ${p.link}\n\nUntil you do, studies that other people share or transfer to this address cannot reach your account. The link works once and expires in ${p.hours} hours.`,
    html: layout(
      subject,
      html`<p>Hello ${p.name},</p>
        <p>Please confirm that this is your email address.</p>
        ${button(p.link, 'Confirm email address')}
        <p>
          Until you do, studies that other people share or transfer to this address cannot reach your account.
          The link works once and expires in ${String(p.hours)} hours.
        </p>`,
    ),
  };
}

export function professionalApprovedEmail(p: { name: string; appUrl: string }): MailContent {
  const subject = 'Your professional account has been approved';
  return {
    subject,
    text: `Hello ${p.name},\n\nAn administrator has verified your licence. Your Medical Imaging professional account is active: sign in at ${p.appUrl}/login.`,
    html: layout(
      subject,
      html`<p>Hello ${p.name},</p>
        <p>
          An administrator has verified your licence. Your Medical Imaging professional account is active.
        </p>
        ${button(`${p.appUrl}/login`, 'Sign in')}`,
    ),
  };
}

export function professionalRejectedEmail(p: { name: string; reason: string; appUrl: string }): MailContent {
  const subject = 'Your professional account application';
  return {
    subject,
    text: `Hello ${p.name},\n\nAn administrator could not verify your professional account application.\n\nReason: ${p.reason}\n\nIf you think this is a mistake, reply to this message.`,
    html: layout(
      subject,
      html`<p>Hello ${p.name},</p>
        <p>An administrator could not verify your professional account application.</p>
        <p><strong>Reason:</strong> ${p.reason}</p>
        ${note('If you think this is a mistake, reply to this message.')}`,
    ),
  };
}

/** Sent when an uploaded study has been processed; never names the patient or the study (no PHI in email). */
export function studyProcessedEmail(p: { ok: boolean; appUrl: string }): MailContent {
  const subject = p.ok ? 'Your upload has been processed' : 'Your upload could not be processed';
  const body = p.ok
    ? 'Your upload has finished processing and is ready in My Studies.'
    : 'We could not process your upload. Sign in to see why in your notifications.';
  return {
    subject,
    text: `${body}

Sign in at ${p.appUrl}/studies to see it.`,
    html: layout(
      subject,
      html`<p>${body}</p>
        ${button(`${p.appUrl}/studies`, 'Open My Studies')}`,
    ),
  };
}

/** Any in-app notification, by email (callers keep patient data out of title and description). */
export function notificationEmail(p: { title: string; description: string; link: string }): MailContent {
  return {
    subject: p.title,
    text: `${p.description}\n\nOpen Medical Imaging: ${p.link}\n\nYou can turn these emails off in Settings (Notifications).`,
    html: layout(
      p.title,
      html`<h1 style="font-size:18px">${p.title}</h1>
        <p>${p.description}</p>
        ${button(p.link, 'Open Medical Imaging')}
        <p style="color:#6b7280;font-size:12px">
          You can turn these emails off in Settings (Notifications).
        </p>`,
    ),
  };
}

/** A study shared with an email that has no confirmed account yet: how to see it. */
export function studySharedInvitationEmail(p: { sharedBy: string; link: string }): MailContent {
  return {
    subject: `${p.sharedBy} shared a medical imaging study with you`,
    text: `${p.sharedBy} shared a medical imaging study with you on Medical Imaging.\n\nTo see it, create a free account with this email address (or sign in if you have one):\n${p.link}\n\nIf you did not expect this, you can ignore this email.`,
    html: layout(
      'A study was shared with you',
      html`<h1 style="font-size:18px">A study was shared with you</h1>
        <p>${p.sharedBy} shared a medical imaging study with you on Medical Imaging.</p>
        <p>To see it, create a free account with this email address, or sign in if you have one.</p>
        ${button(p.link, 'See the study')}
        <p style="color:#6b7280;font-size:12px">If you did not expect this, you can ignore this email.</p>`,
    ),
  };
}

/** The owner's copy of a recipient's ownership request, with the link that approves it. */
export function ownershipRequestEmail(p: { requester: string; link: string }): MailContent {
  return {
    subject: 'Ownership of one of your studies was requested',
    text: `${p.requester} asks to become the owner of a study you shared with them.\n\nTo approve, open this link while signed in:\n${p.link}\n\nApproving moves the study, its storage and its shares to them. If you do not want this, ignore this email.`,
    html: layout(
      'Ownership requested',
      html`<h1 style="font-size:18px">Ownership requested</h1>
        <p>${p.requester} asks to become the owner of a study you shared with them.</p>
        <p>Approving moves the study, its storage and its shares to them.</p>
        ${button(p.link, 'Approve the transfer')}
        <p style="color:#6b7280;font-size:12px">If you do not want this, ignore this email.</p>`,
    ),
  };
}

/** Invite User: an invitation to upload studies into the inviter's account (their own words escaped). */
export function inviteUserEmail(p: { inviterName: string; link: string; days: number }): MailContent {
  const subject = `${p.inviterName} invited you to send medical images on Medical Imaging`;
  return {
    subject,
    text: `${p.inviterName} invited you to upload medical imaging studies (for example from a CD or a folder of DICOM files) into their Medical Imaging account.\n\nSign in or create a free account, then upload the files:\n${p.link}\n\nThe link works for ${p.days} days. If you did not expect this, you can ignore this email.`,
    html: layout(
      subject,
      html`<h1 style="font-size:18px">You are invited to send medical images</h1>
        <p>
          ${p.inviterName} invited you to upload medical imaging studies (for example from a CD or a folder of
          DICOM files) into their Medical Imaging account.
        </p>
        <p>Sign in or create a free account, then upload the files.</p>
        ${button(p.link, 'Upload studies')}
        <p style="color:#6b7280;font-size:12px">
          The link works for ${String(p.days)} days. If you did not expect this, you can ignore this email.
        </p>`,
    ),
  };
}

/** Invite New Provider: an invitation to apply for a professional account (a single-use referral). */
export function providerInviteEmail(p: { inviterName: string; link: string; days: number }): MailContent {
  const subject = `${p.inviterName} invited you to join Medical Imaging as a healthcare provider`;
  return {
    subject,
    text: `${p.inviterName} invited you to join Medical Imaging as a healthcare provider, so they can share their imaging studies with you.\n\nApply for a professional account with this email address (an administrator verifies your licence before the account opens):\n${p.link}\n\nThe link works once, for ${p.days} days. If you did not expect this, you can ignore this email.`,
    html: layout(
      subject,
      html`<h1 style="font-size:18px">Join Medical Imaging as a healthcare provider</h1>
        <p>
          ${p.inviterName} invited you to join Medical Imaging as a healthcare provider, so they can share
          their imaging studies with you.
        </p>
        <p>
          Apply for a professional account with this email address; an administrator verifies your licence
          before the account opens.
        </p>
        ${button(p.link, 'Apply for an account')}
        <p style="color:#6b7280;font-size:12px">
          The link works once, for ${String(p.days)} days. If you did not expect this, you can ignore this
          email.
        </p>`,
    ),
  };
}

/** The label/value lines of a receipt, as plain text and as an HTML table (values escaped). */
function receiptLines(rows: Array<[label: string, value: string]>): { text: string; html: SafeHtml } {
  const cells = rows.map(
    ([label, value]) =>
      html`<tr>
        <td style="padding:4px 12px 4px 0;color:#6b7280">${label}</td>
        <td>${value}</td>
      </tr>`,
  );
  return {
    text: rows.map(([label, value]) => `${label}: ${value}`).join('\n'),
    html: new SafeHtml(
      `<table style="border-collapse:collapse">${cells.map((c) => c.value).join('')}</table>`,
    ),
  };
}

/** Payment receipt (Transaction History): the service and provider bought, the amount and the card's last digits. */
export function paymentReceiptEmail(p: {
  serviceName: string;
  providerName: string;
  amount: string;
  card: string;
  orderId: string;
  date: string;
  link: string;
}): MailContent {
  const subject = `Receipt for ${p.serviceName}`;
  const lines = receiptLines([
    ['Service', p.serviceName],
    ['Provider', p.providerName],
    ['Amount paid', p.amount],
    ['Card', p.card],
    ['Order', p.orderId],
    ['Date', p.date],
  ]);
  return {
    subject,
    text: `Thank you for your purchase.\n\n${lines.text}\n\nFollow your order under Purchased Services:\n${p.link}`,
    html: layout(
      subject,
      html`<h1 style="font-size:18px">Thank you for your purchase</h1>
        ${lines.html} ${button(p.link, 'View Purchased Services')}`,
    ),
  };
}

/** Sent when a payment is refunded (an order refunded, or an extra payment for a paid order). */
export function refundReceiptEmail(p: {
  serviceName: string;
  amount: string;
  card: string;
  reference: string;
  reason: string;
  date: string;
  link: string;
}): MailContent {
  const subject = `Refund for ${p.serviceName}`;
  const lines = receiptLines([
    ['Service', p.serviceName],
    ['Amount refunded', p.amount],
    ['Card', p.card],
    ['Reason', p.reason],
    ['Reference', p.reference],
    ['Date', p.date],
  ]);
  return {
    subject,
    text: `Your payment was refunded.\n\n${lines.text}\n\nThe refund may take a few days to appear on your statement.\n${p.link}`,
    html: layout(
      subject,
      html`<h1 style="font-size:18px">Your payment was refunded</h1>
        ${lines.html}
        <p>The refund may take a few days to appear on your statement.</p>
        ${button(p.link, 'View Purchased Services')}`,
    ),
  };
}

/** Sent to the owner when two-factor sign-in is turned off. */
export function mfaDisabledEmail(p: { appUrl: string }): MailContent {
  const subject = 'Two-factor sign-in was turned off';
  const what =
    'Two-factor sign-in was just turned off for your Medical Imaging account: signing in now needs only your password.';
  return {
    subject,
    text: `${what}\n\nIf this was not you, reset your password at ${p.appUrl}/forgot-password, turn two-factor sign-in on again in Settings and contact support.`,
    html: layout(
      subject,
      html`<p>${what}</p>
        ${note(
          'If this was not you, reset your password, turn two-factor sign-in on again in Settings and contact support.',
        )}${button(`${p.appUrl}/forgot-password`, 'Reset password')}`,
    ),
  };
}

/** Sent to a new address the account asked to move to: the link makes the change. */
export function emailChangeConfirmEmail(p: {
  name: string;
  newEmail: string;
  link: string;
  hours: number;
}): MailContent {
  const subject = 'Confirm your new email address';
  return {
    subject,
    text: `Hello ${p.name},\n\nYou asked to use ${p.newEmail} for your Medical Imaging account. Confirm it here: ${p.link}\nThe link works once and expires in ${p.hours} hours. Until then, your account keeps its current address.\n\nIf you did not ask for this, ignore this message.`,
    html: layout(
      subject,
      html`<p>Hello ${p.name},</p>
        <p>You asked to use ${p.newEmail} for your Medical Imaging account.</p>
        ${button(p.link, 'Confirm new email address')}
        ${note(
          `The link works once and expires in ${p.hours} hours. Until then, your account keeps its current address. If you did not ask for this, ignore this message.`,
        )}`,
    ),
  };
}

/** Sent to the old address once the account has moved to a new one. */
export function emailChangedEmail(p: { appUrl: string; newEmail: string }): MailContent {
  const subject = 'Your Medical Imaging email address was changed';
  return {
    subject,
    text: `Your Medical Imaging account now uses ${p.newEmail}; this address no longer signs in to it.\n\nIf this was not you, contact support at once.`,
    html: layout(
      subject,
      html`<p>Your Medical Imaging account now uses ${p.newEmail}; this address no longer signs in to it.</p>
        ${note('If this was not you, contact support at once.')}${button(`${p.appUrl}/login`, 'Sign in')}`,
    ),
  };
}
