// modules/mail: what other modules, http/ and the composition root may use. Lint
// (architecture/import-boundaries) refuses imports of this module's other files from outside it.
export { createMailService, type MailService } from './mail.service';
export { sendEmailJob } from './send-email.job';
export {
  duplicateRegistrationEmail,
  emailChangeConfirmEmail,
  emailChangedEmail,
  inviteUserEmail,
  mfaCodeEmail,
  mfaDisabledEmail,
  notificationEmail,
  ownershipRequestEmail,
  passwordChangedEmail,
  passwordResetEmail,
  paymentReceiptEmail,
  professionalApprovedEmail,
  professionalRejectedEmail,
  providerInviteEmail,
  refundReceiptEmail,
  signInUnlockEmail,
  studyProcessedEmail,
  studySharedInvitationEmail,
  verifyEmailEmail,
  welcomeEmail,
} from './templates';
export { createMailModule } from './mail.module';
