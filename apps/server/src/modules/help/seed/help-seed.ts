import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { HELP_IMAGE_PATH } from '@mi/contracts/help';

/** A help article the help centre starts with; `key` keeps it from being added twice. */
export interface SeedArticle {
  key: string;
  title: string;
  description: string;
  category: string;
  featured: boolean;
  /** HTML; sanitised like any article before it is stored. */
  content: string;
  /** Screenshots the content shows (files in ./images), put into object storage at start. */
  images: string[];
}

/**
 * The screenshots live beside this file (development and tests run it from src/); the build copies
 * them beside the bundle as dist/help-images (apps/server/build.mjs).
 */
const IMAGE_DIRS = [new URL('./images/', import.meta.url), new URL('./help-images/', import.meta.url)];

export async function readSeedImage(name: string): Promise<Buffer> {
  for (const dir of IMAGE_DIRS) {
    const file = fileURLToPath(new URL(name, dir));
    if (existsSync(file)) return readFile(file);
  }
  throw new Error(`help seed image ${name} not found`);
}

const img = (name: string, alt: string) => `<p><img src="${HELP_IMAGE_PATH}${name}" alt="${alt}"></p>`;

/**
 * The articles a new installation starts with, newest first. They describe the product as it works
 * today; keep them true when a screen or rule changes (admins may edit them afterwards).
 */
export const HELP_SEED_ARTICLES: SeedArticle[] = [
  {
    key: 'getting-started',
    title: 'Getting started with Medical Imaging',
    description:
      'What you can do here, and the five steps from your first upload to sharing a study with your doctor.',
    category: 'Getting Started',
    featured: true,
    images: ['my-studies-menu.webp'],
    content: `
<p>Medical Imaging keeps your scans (CT, MRI, X-ray, ultrasound and other DICOM studies) in one place, lets you look at them in a full DICOM viewer, and lets you share them with the doctors you trust.</p>
<h2>Your first study in five steps</h2>
<ol>
<li><strong>Upload.</strong> On the dashboard choose <strong>Upload New Study</strong>, pick files, a folder, a ZIP archive or a CD/DVD, and press <strong>Upload Files</strong>.</li>
<li><strong>Wait for processing.</strong> The study is checked and indexed in the background. You can close the page; a notification tells you when it is ready (and an email too, if email notifications are on).</li>
<li><strong>Find it.</strong> Open <strong>My Studies</strong> from the sidebar. Every study there is complete and ready to view.</li>
<li><strong>View it.</strong> Choose <strong>More actions → View</strong>. The viewer opens in a new tab.</li>
<li><strong>Share it.</strong> Turn on <strong>Share Medical Records</strong> under <strong>Settings → Privacy &amp; Sharing</strong>, then use <strong>Share</strong> on the study's row.</li>
</ol>
${img('my-studies-menu.webp', "A study's row in My Studies with its More actions menu open: View, Download, Transfer Ownership and Access &amp; activity")}
<h2>Finding your way around</h2>
<ul>
<li>The <strong>sidebar</strong> leads to the Dashboard, My Studies, services, Healthcare Providers, Billing and Settings.</li>
<li>The <strong>user menu</strong> (your initials, top right) holds Notifications, this Help centre, Invite User, Share and Logout.</li>
<li><strong>Recent Activity</strong> on the dashboard lists your unread notifications; mark one as read and it slides away.</li>
</ul>
<p>For your safety you are signed out after 30 minutes without activity. Five minutes before, a <strong>Session Timeout Warning</strong> lets you choose <strong>Stay Logged In</strong>.</p>`,
  },
  {
    key: 'upload-files-folder-zip',
    title: 'Uploading a study from files, a folder or a ZIP archive',
    description: 'The four ways to upload, what is accepted, and what happens to files that are not DICOM.',
    category: 'Uploading Studies',
    featured: true,
    images: ['upload.webp'],
    content: `
<p>Open <strong>Upload</strong> from the dashboard or My Studies (<strong>Upload New Study</strong>). Four tiles offer the ways to add a study:</p>
<ul>
<li><strong>Select Files</strong>: one or more DICOM files.</li>
<li><strong>Select Folder</strong>: a folder and everything inside it, sub-folders included.</li>
<li><strong>Upload ZIP</strong>: a <code>.zip</code> archive of a study, as many hospitals and imaging centres hand them out.</li>
<li><strong>CD/DVD</strong>: the disc drive itself (see <em>Uploading from a CD or DVD</em>).</li>
</ul>
${img('upload.webp', 'The upload page with its four tiles: Select Files, Select Folder, Upload ZIP and CD/DVD')}
<p>After you choose, the page says how many files you selected. <strong>Show files</strong> lists them with their sizes, and you can remove any of them or <strong>Clear</strong> the selection; choosing again replaces it. Press <strong>Upload Files</strong>: the files are packed, sent, and the dialog ends with <strong>Upload complete</strong>.</p>
<h2>What happens next</h2>
<p>Processing reads every file. A study appears in My Studies only when its upload has been processed completely, so you never see half a study. Meanwhile a <strong>Pending Jobs</strong> badge shows how many uploads are still being processed.</p>
<ul>
<li><strong>Files that are not DICOM</strong> (reports in PDF, viewer programs on a disc, pictures, text files) are skipped; they do not stop the upload.</li>
<li><strong>Archives inside the archive</strong> are skipped and counted rather than opened.</li>
<li><strong>One upload may hold several studies</strong>: each becomes its own entry in My Studies.</li>
<li><strong>Uploading the same images again</strong> adds nothing and uses no extra storage.</li>
<li>If nothing usable is found, or the archive is damaged or unsafe, nothing is added and a notification explains why.</li>
</ul>
<p>Large uploads resume where they stopped if the connection drops, as long as the page stays open.</p>`,
  },
  {
    key: 'upload-cd-dvd',
    title: 'Uploading from a CD or DVD',
    description: 'How to upload the disc you were given after a scan, and why only its images are sent.',
    category: 'Uploading Studies',
    featured: false,
    images: [],
    content: `
<p>Imaging discs usually hold the images together with a viewer program, documents and an index file called <code>DICOMDIR</code>. You do not need to find the images yourself.</p>
<ol>
<li>Put the disc in the drive. If your computer offers to run the disc's own viewer, you can close it.</li>
<li>On the upload page choose the <strong>CD/DVD</strong> tile and pick the disc drive itself (its top folder).</li>
<li>The page looks through the disc in your browser and keeps only the DICOM images: files with the DICOM signature, plus every file the disc's <code>DICOMDIR</code> lists (some older devices write images without the signature).</li>
<li>Check the count, then press <strong>Upload Files</strong>.</li>
</ol>
<p>If the disc holds no DICOM images, the page says <strong>No DICOM Files Found</strong>. Some discs only carry a report or a copy of the pictures as ordinary image files; ask the imaging centre for a DICOM copy.</p>
<h2>Tips</h2>
<ul>
<li>Copying the disc to a folder first and using <strong>Select Folder</strong> works too.</li>
<li>A disc with several examinations becomes several studies.</li>
<li>Keep the page open until the dialog says <strong>Upload complete</strong>.</li>
</ul>`,
  },
  {
    key: 'storage-limits',
    title: 'Storage limits: how much you can upload',
    description:
      'How your storage allowance is counted, what happens when an upload would exceed it, and how to free space.',
    category: 'Privacy & Storage',
    featured: false,
    images: [],
    content: `
<p>Every account has a storage allowance (10 GB unless your administrator set another). It counts the studies you own; studies shared with you do not count.</p>
<ul>
<li>Before an upload starts, the page compares the size of your selection with the room you have left. If it would not fit, you see <strong>Storage Limit Exceeded</strong> and nothing is sent.</li>
<li>Images you have already uploaded are not counted twice.</li>
<li>Uploads other people send through your invitation link count against <em>your</em> allowance, because the studies become yours.</li>
<li>When you transfer a study to someone, its size moves to their allowance; they need enough room for it.</li>
</ul>
<h2>Freeing space</h2>
<p>Delete studies you no longer need: in My Studies use the <strong>Delete</strong> button on the study's row and confirm. The space is available again straight away. Download a copy first if you want to keep one (see <em>Downloading a study</em>).</p>
<p>If you need a larger allowance, ask your administrator.</p>`,
  },
  {
    key: 'viewer-basics',
    title: "The viewer's basic tools",
    description:
      'Opening a study, scrolling through images, adjusting brightness and contrast, zooming, measuring and changing the layout.',
    category: 'Viewing & Downloading',
    featured: true,
    images: [],
    content: `
<p>In My Studies choose <strong>More actions → View</strong> (or <strong>View Study</strong> on a dashboard card). The viewer opens in a new tab after a short <em>Preparing study viewer, please wait…</em>.</p>
<h2>Finding your way</h2>
<ul>
<li>The <strong>left panel</strong> shows one thumbnail per series. Double-click one, or drag it onto a viewport, to show it.</li>
<li>The <strong>toolbar</strong> at the top holds the tools; the active one is highlighted.</li>
<li>The <strong>right panel</strong> lists the measurements you made.</li>
</ul>
<h2>Mouse and keyboard</h2>
<ul>
<li><strong>Scroll wheel</strong>, or the up and down arrow keys: move through the images of a series (slices of a CT or MRI).</li>
<li><strong>Left button</strong>: the active tool. By default this is <strong>Window/Level</strong>: drag up and down to change contrast, left and right to change brightness.</li>
<li><strong>Right button</strong> drag: zoom. <strong>Middle button</strong> drag: pan.</li>
</ul>
<h2>Useful tools</h2>
<ul>
<li><strong>Zoom</strong>, <strong>Pan</strong> and <strong>Window/Level</strong> presets (for example soft tissue, lung or bone on CT).</li>
<li><strong>Measurement tools</strong>: length, angle, ellipse and rectangle regions, arrow annotations. Measurements are not saved to your study.</li>
<li><strong>Layout</strong>: show several series side by side. Layouts such as MPR (the three planes of a CT or MRI volume) need a graphics card the browser can use.</li>
<li><strong>Reset</strong> puts the view back; <strong>Capture</strong> saves the current view as a picture.</li>
</ul>
<p>The viewer link works only in the browser that opened it and for about two hours. If it stops, open the study again from My Studies.</p>`,
  },
  {
    key: 'download-study',
    title: 'Downloading a study',
    description:
      'Get a ZIP copy of your study with its original DICOM files, for a disc, another viewer or your own records.',
    category: 'Viewing & Downloading',
    featured: false,
    images: ['my-studies-menu.webp'],
    content: `
<p>You can download any study you own:</p>
<ol>
<li>Open <strong>My Studies</strong>.</li>
<li>On the study's row open <strong>More actions</strong> (the three dots) and choose <strong>Download</strong>.</li>
<li>While the archive is prepared you see <em>Preparing download, please wait...</em>, then <strong>Downloading Study</strong>.</li>
</ol>
${img('my-studies-menu.webp', 'The More actions menu (three dots) on a study in My Studies, with Download second in the list')}
<p>The file is named <code>study-&lt;id&gt;.zip</code>. Inside, each series has its own folder, numbered and named after its modality (for example <code>001_CT</code>), holding the original DICOM files in viewing order. Any DICOM viewer or PACS can read them. Downloading the same study again gives exactly the same file.</p>
<p>Studies shared with you cannot be downloaded: the owner decides who keeps a copy. Ask the owner to transfer the study to you if you need it (see <em>Transferring ownership of a study</em>).</p>`,
  },
  {
    key: 'share-and-revoke',
    title: 'Sharing a study with a doctor, and revoking access',
    description:
      'Share by email or with a provider from your network, see who has access, and take it back at any time.',
    category: 'Sharing & Providers',
    featured: true,
    images: ['privacy-sharing.webp', 'share-study.webp'],
    content: `
<h2>Before you share</h2>
<p>Sharing is off for new accounts. Turn on <strong>Share Medical Records</strong> under <strong>Settings → Privacy &amp; Sharing</strong>. Until then the Share Study dialog explains why it cannot share.</p>
${img('privacy-sharing.webp', 'Settings, Privacy &amp; Sharing tab: the Share Medical Records switch turned on, above Two-Factor Authentication')}
<h2>Sharing</h2>
<ol>
<li>In <strong>My Studies</strong> press <strong>Share</strong> on the study's row.</li>
<li>Type an email address, or start typing to pick one of your providers from the list.</li>
<li>Add as many recipients as you need; each becomes a chip. Press <strong>Share Study</strong>.</li>
</ol>
${img('share-study.webp', 'The Share Study dialog: a new recipient added as a chip above the Email field, and Currently Shared With listing a doctor with the date and a Revoke Access button')}
<p>The recipient is notified. Someone with an account sees the study under <strong>My Studies → Shared Studies</strong> once their email address is confirmed; someone without an account receives an invitation to sign up. Emails never mention the patient or the study's contents.</p>
<h2>What a recipient can do</h2>
<p>A recipient can <strong>view</strong> the study and <strong>request ownership</strong>. They cannot download, delete, share it further or transfer it. You are told the first time each recipient opens it.</p>
<h2>Revoking access</h2>
<p>Open <strong>Share</strong> on the study again. <strong>Currently Shared With</strong> lists every recipient with the date you shared; press <strong>Revoke Access</strong>. The study disappears for them at once, even in a viewer they have open.</p>
<p>Turning <strong>Share Medical Records</strong> off pauses every share of all your studies; turning it on again restores them.</p>`,
  },
  {
    key: 'transfer-ownership',
    title: 'Transferring ownership of a study',
    description:
      'Hand a study over to another account, or ask the owner of a shared study to hand it to you.',
    category: 'Sharing & Providers',
    featured: false,
    images: [],
    content: `
<p>Transferring makes someone else the owner: the study leaves your account and its storage moves to theirs.</p>
<h2>Giving a study away</h2>
<ol>
<li>In <strong>My Studies</strong> open <strong>More actions → Transfer Ownership</strong>.</li>
<li>In <strong>Enter Email to transfer ownership</strong> type the new owner's email and press <strong>Transfer</strong>.</li>
</ol>
<p>The transfer goes through only if the address belongs to an account whose email is confirmed, that account has enough free storage, and it does not already hold the same study. The study's current shares move with it and continue once the new owner allows sharing.</p>
<h2>Asking for a study shared with you</h2>
<ol>
<li>In <strong>My Studies → Shared Studies</strong> open <strong>More actions → Request Ownership</strong>.</li>
<li>The owner gets a notification and an email with a link to approve. You see <strong>Ownership Request Submitted</strong>; asking again while the request is open changes nothing.</li>
<li>When the owner approves, the study moves to your My Studies and you are told <strong>Ownership Received</strong>.</li>
</ol>
<p>A transfer cannot be undone by the previous owner; the new owner can transfer it back.</p>`,
  },
  {
    key: 'two-factor-sign-in',
    title: 'Two-factor sign-in and recovery codes',
    description:
      'Protect your account with a code by email or from an authenticator app, and keep recovery codes for a lost phone.',
    category: 'Account & Security',
    featured: true,
    images: [],
    content: `
<p>With two-factor sign-in on, your password alone is not enough: after it you enter a six-digit code.</p>
<h2>Turning it on</h2>
<ol>
<li>Open <strong>Settings → Privacy &amp; Sharing</strong> and switch on <strong>Two-Factor Authentication</strong>.</li>
<li>Choose the <strong>Two-Factor Authentication Method</strong>: <strong>Email</strong> (the default) or <strong>Authenticator app</strong>.</li>
</ol>
<h2>Email codes</h2>
<p>At sign-in we email you a code that works once and expires after 10 minutes. Didn't get it? Check your spam folder; you can ask for a new one after 30 seconds.</p>
<h2>Authenticator app</h2>
<ol>
<li>Choose <strong>Set up authenticator app</strong>, scan the QR code with an app such as Google Authenticator, Microsoft Authenticator or 1Password, and enter the code it shows.</li>
<li>You then see <strong>ten recovery codes</strong>, once. Save them somewhere safe, away from your phone (print them, or keep them in a password manager).</li>
</ol>
<h2>Lost your phone?</h2>
<p>At the code step enter one of your recovery codes instead; each works once. Then set up the app again on your new phone, which gives you fresh codes. If you have no recovery code left, contact your administrator.</p>
<p>Resetting a forgotten password signs you out everywhere but keeps two-factor sign-in on.</p>`,
  },
  {
    key: 'account-security',
    title: 'Keeping your account secure',
    description:
      'Passwords, signing out other devices, automatic sign-out, and what to do if something looks wrong.',
    category: 'Account & Security',
    featured: false,
    images: [],
    content: `
<ul>
<li><strong>Use a strong, unique password</strong> of at least 8 characters. If you forget it, use <strong>Forgot password</strong> on the sign-in page; the reset link signs you out of every device.</li>
<li><strong>See where you are signed in.</strong> <strong>Settings</strong> lists your active sessions with device, address and last activity. Sign out any one you do not recognise, or all others at once.</li>
<li><strong>Automatic sign-out.</strong> After 30 minutes without activity you are signed out; five minutes before, you can choose <strong>Stay Logged In</strong>. Every session also ends after 12 hours.</li>
<li><strong>Too many wrong passwords</strong> pause sign-in for that account for 15 minutes.</li>
<li><strong>Confirm your email.</strong> Until you follow the confirmation link we sent, what others share with that address does not reach you. A banner offers to send it again.</li>
</ul>
<p>We never ask for your password or a code by email or phone.</p>`,
  },
  {
    key: 'privacy-who-can-see',
    title: 'Privacy: who can see your studies',
    description:
      'Only you and the people you share with. How Share Medical Records works and how to check every access.',
    category: 'Privacy & Storage',
    featured: true,
    images: ['privacy-sharing.webp', 'access-activity.webp'],
    content: `
<p>A study you upload is yours. Nobody else can open it, find it or learn that it exists, unless you share it.</p>
<ul>
<li><strong>You</strong> can view, download, share, transfer and delete it.</li>
<li><strong>People you share with</strong> can only view it and ask for ownership, and only while you allow sharing.</li>
<li><strong>Administrators</strong> look after accounts and the service; they cannot open your studies.</li>
</ul>
<h2>Share Medical Records</h2>
<p>This switch under <strong>Settings → Privacy &amp; Sharing</strong> is your consent to sharing. It is off for new accounts. While it is off nobody can be given access, and everyone you shared with loses access until you turn it on again; your shares are kept. The <strong>Consent Management</strong> tab shows when you accepted the terms and since when you consent to sharing.</p>
${img('privacy-sharing.webp', 'Settings, Privacy &amp; Sharing tab with the Share Medical Records switch turned on')}
<h2>Access &amp; activity</h2>
<p>For any study you own, choose <strong>More actions → Access &amp; activity</strong>. It shows who can open the study now, whether each person has opened it or is still waiting to sign up, and every open, download, share, revocation and ownership change, newest first.</p>
${img('access-activity.webp', 'The Access &amp; activity dialog of a study: one doctor who can open it, waiting for sign-up and not opened yet, and the sharing listed under Activity')}
<p>Every access to medical data is also written to a permanent audit log. Notifications and emails never contain patient names or study descriptions.</p>`,
  },
  {
    key: 'invitations-share-embed',
    title: 'Invitations and Share & Embed: letting others send you studies',
    description:
      'Invite someone to the platform, or give clinics a link, QR code or website widget to upload studies straight into your account.',
    category: 'Sharing & Providers',
    featured: false,
    images: ['share-embed-qr.webp'],
    content: `
<h2>Invite User</h2>
<p>From the user menu choose <strong>Invite User</strong> and enter an email address; we send them an invitation to join. You can send up to 20 invitations an hour.</p>
<h2>Share &amp; Embed</h2>
<p>Open <strong>Share</strong> from the user menu. It gives you one personal upload link in three forms:</p>
<ul>
<li><strong>QR Code</strong>, to print or show on a screen; download it as a picture or copy it.</li>
<li><strong>Embeddable Widget</strong>, a button, banner, badge or card for your website, in the style and colours you choose. Copy its HTML into your page.</li>
<li><strong>Direct URL</strong>, to paste into an email or message.</li>
</ul>
${img('share-embed-qr.webp', 'The Share &amp; Embed page on its QR Code tab: the QR code of your upload link with Copy Image and Download PNG buttons')}
<p>Whoever opens the link and signs in gets a simple upload page that says the files will be sent to you. The studies they upload become <strong>yours</strong>, count against your storage, and the sender gets no access to them. You are notified <em>New study uploaded for you</em> when one is processed.</p>
<p>A link works for 30 days. If it has been passed around too widely, choose <strong>Revoke and create a new link</strong> under Direct URL: the old link, its QR code and widgets stop working at once.</p>`,
  },
  {
    key: 'provider-network',
    title: 'Your healthcare provider network',
    description:
      'Keep a list of the doctors and clinics you trust, find them in the directory, invite new ones, and share with them quickly.',
    category: 'Sharing & Providers',
    featured: false,
    images: [],
    content: `
<p><strong>Healthcare Providers</strong> in the sidebar is your own list of trusted doctors and clinics.</p>
<ul>
<li><strong>Add Existing Provider</strong> searches the provider directory by name or email and filters by specialty, country and years of experience.</li>
<li><strong>Invite New Provider</strong> emails a doctor who is not on the platform yet, with a link to apply for a professional account.</li>
<li>The <strong>details</strong> button shows a provider's specialty, experience, credentials, address, contact details and working hours. <em>On the platform</em> means what you share reaches a verified professional's account.</li>
<li>Your providers appear in the Share Study dialog as you type, so sharing with them takes two clicks. Sharing with a new email address adds it to your own contacts.</li>
<li><strong>View Shared Studies</strong> shows what you shared with a provider.</li>
<li><strong>Remove Provider</strong> takes them off your list. It does not revoke what you already shared; revoke that in each study's Share dialog.</li>
</ul>
<p>Medical professionals apply with the professional registration form and can use their account once an administrator has verified their licence.</p>`,
  },
  {
    key: 'notifications-email',
    title: 'Notifications and email preferences',
    description:
      'What you are told about, where to read it, and how to choose whether notifications also arrive by email.',
    category: 'Account & Security',
    featured: false,
    images: [],
    content: `
<p>You are notified when an upload has been processed (or could not be), when someone shares a study with you or revokes it, when someone asks for one of your studies or moves one to you, and when someone first opens a study you shared.</p>
<ul>
<li>Unread notifications are listed in <strong>Recent Activity</strong> on the dashboard, and the badge on <strong>Notifications</strong> in the user menu counts them.</li>
<li>Mark one as read and it disappears from Recent Activity.</li>
<li><strong>Settings → Notifications → Email Notifications</strong> decides whether each notification is also emailed to you. It is on for new accounts.</li>
</ul>
<p>Some emails are sent whatever that setting says, because they are the message itself: security codes, password resets, email confirmation, and an ownership request with its approve link.</p>
<p>Notifications and emails never include patient names or study descriptions.</p>`,
  },
  {
    key: 'studies-list',
    title: 'Finding studies in My Studies',
    description: 'Search, filter by type and date, sort the columns, and read a study\u2019s details.',
    category: 'Getting Started',
    featured: false,
    images: [],
    content: `
<p><strong>My Studies</strong> has two tabs: <strong>My Studies</strong> (the studies you own) and <strong>Shared Studies</strong> (those others share with you, with who shared each one).</p>
<ul>
<li><strong>Search studies...</strong> finds a study by its description or the patient's name, in any word order.</li>
<li>The <strong>type</strong> filter keeps one modality (CT, MR, CR and so on); a study with several modalities stays under each of them.</li>
<li>The <strong>date range</strong> picker keeps studies whose scan (the study date) falls between two dates.</li>
<li>Click a column heading to sort by it; click again to reverse. The newest uploads come first by default.</li>
<li>The <strong>info</strong> button beside the modality opens <strong>Study Information</strong>: identifiers, description, location, patient information and dates.</li>
</ul>
<p>Patient names are shown family name first, as DICOM stores them (for example <em>DOE, JANE</em>).</p>`,
  },
  {
    key: 'ordering-an-analysis',
    title: 'Ordering an analysis, paying, and refunds',
    description:
      'Get Analysis on a study, choose a service and a provider, pay by card, follow the order, open the report, and when you are refunded.',
    category: 'Analyses & Billing',
    featured: false,
    images: [],
    content: `
<p>You can have a study read: an <strong>AI Quick Analysis</strong> (an automated technical summary within minutes), an <strong>Expert Review</strong> by a professional, or the <strong>Complete Analysis Package</strong> with both.</p>
<h2>Ordering</h2>
<ol>
<li>In <strong>My Studies</strong> (or on the dashboard) press <strong>Get Analysis</strong> on a processed study. <strong>Available Services</strong> opens with a banner naming the study.</li>
<li>Expand a service to see what it needs (its required data and the types of images it reads) and the providers who offer it, with their rating, price and whether they are in your network.</li>
<li>Press <strong>Purchase</strong> beside a provider. In <strong>Confirm Purchase</strong> choose the study, enter your card and press <strong>Make Payment</strong>. The price is the provider's price shown in the list; it is set by the server, never by the page.</li>
<li>When the payment goes through you see <strong>Payment Completed</strong>; <strong>Go to Purchased Services</strong> shows the order. A receipt is emailed to you.</li>
</ol>
<p>You can also order from <strong>Analysis services</strong>: <strong>Order Now</strong> creates an order that waits for payment under <strong>Billing</strong>, where you can pay it with the same card form or cancel it.</p>
<p>A declined card, an expired card or a wrong security code shows its own message, and nothing is ordered or charged. Your full card number is never stored: only the card's brand and last four digits.</p>
<h2>Following an order</h2>
<ul>
<li><strong>Pending Provider Approval</strong>: an Expert Review waits for the provider's professional to accept it.</li>
<li><strong>In Progress</strong>: the professional is reading the study, or the automated analysis is running. While they work on your order, the professional can view that one study (never download it); this ends when the order ends.</li>
<li><strong>Upload Required Data</strong> (highlighted row): the study has no images of a type the service reads. Press <strong>Attach Study</strong> to choose another of your studies (the dialog says what the service reads and which studies fit), or upload one first.</li>
<li><strong>Completed</strong>: the report is ready. <strong>Open report</strong> shows it as a PDF, and it is also added to the study as a new series, so you see it in the viewer and it is part of the download. You are notified, and emailed if email notifications are on.</li>
</ul>
<p>A <strong>Complete Analysis Package</strong> has two parts: its automated report is added to the study as soon as the study is ready, and <strong>Automated report</strong> opens it while the professional's reading is still to come; the order completes with that reading.</p>
<p>The AI Quick Analysis reports what the images themselves say (series and image counts, acquisition parameters, slice coverage and gaps, dose values when the scanner recorded them, image statistics and a few key images). It is labelled as automated and is not a diagnosis.</p>
<h2>Refunds</h2>
<p>You are refunded in full, told in the app and sent a refund receipt when a professional declines your order, when nobody accepts it within 48 hours, or when the automated analysis cannot be completed. <strong>Billing → Transaction History</strong> lists every order with its amount and status, and each refund as a line of its own with a negative amount; <strong>Purchased Services</strong> shows how much was refunded and when under the order's status.</p>`,
  },
  {
    key: 'study-links',
    title: 'Sharing a study by link or QR code',
    description:
      'Give someone without an account a link or QR code to your studies, with an expiry and a passcode, see every open, and end it at any time.',
    category: 'Sharing & Providers',
    featured: false,
    images: [],
    content: `
<p>A study link opens one or more of your studies for someone who has no account here: a doctor at another clinic, or the front desk at your next appointment. You choose how long it works, and you see every time it is used.</p>
<p>Links follow your consent: <strong>Share Medical Records</strong> under <strong>Settings → Privacy &amp; Sharing</strong> must be on to create a link, and while it is off no link opens.</p>
<h2>Creating a link</h2>
<ol>
<li>In <strong>My Studies</strong> open a study's <strong>More actions</strong> menu and choose <strong>Share by link / QR</strong>. To put several studies in one link, tick them in the list and press <strong>Share by link / QR</strong> above it.</li>
<li>Choose the <strong>Kind of link</strong>, when it <strong>Expires after</strong>, and the other options below.</li>
<li>Press <strong>Create link</strong>. You see a large QR code and the link, with <strong>Copy</strong>, <strong>Print</strong>, <strong>QR as SVG</strong> and <strong>QR as PNG</strong>.</li>
</ol>
<h2>Kinds of link</h2>
<ul>
<li><strong>Share link</strong>: for a doctor or anyone you send it to. It lasts <strong>15 minutes</strong>, <strong>1 day</strong> (the default), <strong>7 days</strong>, <strong>30 days</strong>, or until a <strong>Custom date and time…</strong> at most 365 days ahead.</li>
<li><strong>Check-in link</strong>: for the front desk; show the QR code when you arrive. It lasts 15 minutes, or a custom time of at most 60 minutes, and has no passcode.</li>
</ul>
<h2>Passcode</h2>
<p>A share link can have a <strong>Passcode</strong> of at least 4 characters. It is optional for a link that lasts up to 24 hours, and <strong>required for more than 24 hours</strong>.</p>
<p>Send the passcode separately from the link: tell it by phone or in person, never in the same message. Anyone with both can open your studies.</p>
<p>Wrong passcodes are limited: after 10 wrong tries over the link's whole life it is disabled for good (<strong>Disabled: too many wrong passcodes</strong>) and you are notified. The Links page shows how many wrong tries are left.</p>
<h2>Other options</h2>
<ul>
<li><strong>Maximum opens</strong> (optional): the link stops working once it has been opened that many times.</li>
<li><strong>Label</strong> (optional): a name such as <em>Dr Rivera, knee MRI</em>, shown to the recipient and in your list of links.</li>
<li><strong>Allow download</strong>: off by default, so the recipient can only view the images. Tick it to let them also download the images as a ZIP file.</li>
<li><strong>Link to de-identified copies</strong>: the link opens copies without your name and other identifying details instead (see <em>Making a de-identified copy of a study</em>).</li>
</ul>
<h2>What the recipient sees</h2>
<p>The recipient opens the link, or scans the QR code with a phone camera; no account is needed. They type <strong>Your name</strong> (you will see it) and, if the link has one, the <strong>Passcode</strong>, then press <strong>Open studies</strong>.</p>
<p>They see the studies with a preview and any reports. <strong>Open images</strong> opens them in the viewer in a new tab; <strong>Download</strong> works only if you allowed it. Once the link has ended, it only says that the studies can no longer be opened.</p>
<h2>Seeing who opened it</h2>
<ul>
<li>The <strong>Links</strong> page in the sidebar lists every link you made: its studies, kind, status, how often it was opened, when it was last opened and by whom, and when it expires.</li>
<li>A study's <strong>More actions → Access &amp; activity</strong> lists the links that open it, and each use of a link under the name the recipient typed, followed by <em>(by link)</em>.</li>
<li>You are notified the first time a link is opened, and when one is disabled by wrong passcodes (by email too, if email notifications are on).</li>
</ul>
<h2>Pausing, extending and ending a link</h2>
<p>On the Links page, or in a study's Access &amp; activity:</p>
<ul>
<li><strong>Pause</strong> stops a link from opening until you <strong>Resume</strong> it.</li>
<li><strong>Extend</strong> gives it a new end, counted from now; an expired link can be extended too. A link without a passcode can last at most 24 hours from now: to share for longer, create a new link with a passcode.</li>
<li><strong>Revoke</strong> ends it at once, even for someone who has the studies open right now. This cannot be undone.</li>
</ul>`,
  },
  {
    key: 'deidentified-copy',
    title: 'Making a de-identified copy of a study',
    description:
      'A copy of a study without your name, birth date or record numbers, for research or a second opinion: kept in My Studies or downloaded.',
    category: 'Privacy & Storage',
    featured: false,
    images: [],
    content: `
<p>A de-identified copy (sometimes called anonymised) is a copy of one of your studies with the details that identify you taken out. Use it when the images matter but who you are does not: for a research project, a second opinion, or an online community.</p>
<h2>Making a copy, or downloading one</h2>
<ol>
<li>In <strong>My Studies</strong> open a study's <strong>More actions</strong> menu.</li>
<li>Choose <strong>Make a de-identified copy</strong> to add a copy to My Studies, or <strong>Download de-identified</strong> to get it as a ZIP file.</li>
<li>A preview shows what changes in one image (each detail <strong>Now</strong> and <strong>After</strong>) and which images will be left out, and why. Press <strong>Make copy</strong> or <strong>Download</strong>.</li>
</ol>
<p>You can do this for any study you own once it has been processed.</p>
<h2>What is removed or changed</h2>
<p>The copy follows the DICOM standard's de-identification profile (DICOM PS3.15):</p>
<ul>
<li>Your name, birth date, patient ID, accession number and other identifying details are removed, blanked or replaced, and so are the names of doctors and of the hospital.</li>
<li>Dates are moved back by a whole number of days, between 1 and 10 years. All your de-identified copies move by the same number of days, so the time between your studies stays right. Times of day are kept.</li>
<li>Descriptions such as the study description are kept, unless they contain your name, an ID, your birth date, or the name of a person, hospital or device found in the study; then they are replaced.</li>
<li>The study's internal identifiers (UIDs) are replaced with new ones, and private data added by the scanner's maker is removed.</li>
</ul>
<h2>What is left out</h2>
<p>The pixels of the images are kept as they are, so text burned into an image (a name typed on an ultrasound picture, for example) is not removed. Instead, an image that may show such text is left out of the copy: images marked as having burned-in text, and ultrasound images, secondary captures and embedded documents that do not say whether they have any. PDF reports and structured reports are left out too, because their text names you. An image that cannot be read is left out rather than copied with your details.</p>
<p>The preview lists every image that will be left out and why.</p>
<h2>Where the copy appears</h2>
<ul>
<li><strong>Make a de-identified copy</strong> works in the background. You are notified when it is ready, and it appears in <strong>My Studies</strong> as a new study marked <strong>De-identified</strong>. It counts against your storage; your original study is not changed.</li>
<li><strong>Download de-identified</strong> gives <code>study-&lt;id&gt;-deidentified.zip</code>. When images were left out, <code>LEFT-OUT.txt</code> inside names them and says why. Every download is made afresh.</li>
</ul>
<p>The copy is a study of its own: nobody can open it unless you share it, and sharing the original does not share the copy.</p>
<h2>Sharing de-identified</h2>
<p>In the Share Study dialog tick <strong>Share a de-identified copy</strong>; in <strong>Share by link / QR</strong> tick <strong>Link to de-identified copies</strong>. The preview appears as soon as you tick it. If you have no copy yet, one is made first; it is then kept in My Studies and used again next time.</p>`,
  },
  {
    key: 'export-my-data',
    title: 'Exporting all your data',
    description:
      'One ZIP of your studies, reports, health record and sharing history, de-identified if you wish, with an optional disc image for a CD or DVD.',
    category: 'Privacy & Storage',
    featured: false,
    images: [],
    content: `
<p><strong>Export my data</strong> makes one ZIP file of everything you keep here, laid out so that other software reads it without help: CD burners, import stations and other DICOM viewers.</p>
<h2>Starting an export</h2>
<ol>
<li>Open <strong>Settings → Privacy &amp; Sharing</strong> and find <strong>Export my data</strong>.</li>
<li>Leave <strong>All my studies</strong> ticked, or untick it and choose the studies to include.</li>
<li>If you wish, turn on <strong>De-identify the images (reports and history are then left out)</strong>, and tick <strong>Also make a disc image (ISO) for burning</strong>.</li>
<li>Press <strong>Export my data</strong>.</li>
</ol>
<p>The export is prepared in the background and its progress shows in the list below. You are notified when it is ready, or told why it could not be made. One export is prepared at a time: you can start another when it is ready. Exports do not count against your storage.</p>
<h2>What the ZIP contains</h2>
<ul>
<li><strong>DICOM files</strong> of your studies, unchanged, with a <strong>DICOMDIR</strong> index, as on a hospital CD.</li>
<li><strong>Reports</strong>: the PDF of every report delivered to you.</li>
<li><strong>A FHIR record</strong>: you, your studies and your reports in FHIR, the standard that health record systems read.</li>
<li><strong>Sharing and access history</strong>: your studies' shares, study links and orders, and who did what with them and when, as CSV files for a spreadsheet and as one JSON file.</li>
<li><strong><code>index.html</code></strong>: a page listing the contents, which opens in any browser, even offline.</li>
</ul>
<h2>De-identified export</h2>
<p>With <strong>De-identify the images</strong> on, the DICOM files are de-identified as for a de-identified copy (see <em>Making a de-identified copy of a study</em>), and the ZIP holds only those files, the DICOMDIR and <code>index.html</code>. The reports, the FHIR record and the history are left out, because they name you. Images that had to be left out are listed in <code>index.html</code> with the reason.</p>
<h2>Disc image for a CD or DVD</h2>
<p>With <strong>Also make a disc image (ISO) for burning</strong> ticked, you also get an <code>.iso</code> file with the same contents, laid out as DICOM media on a CD or DVD. Burn it to a disc with your computer's disc-burning tool. If your studies are large, the image may not fit on one disc.</p>
<h2>Downloading</h2>
<p>When the export shows <strong>Ready</strong>, press <strong>Download medical-imaging-export-&lt;date&gt;.zip</strong>, and the <code>.iso</code> button too if you asked for a disc image. Each button shows the file's size.</p>
<p>An export is kept for 7 days after it is ready (<strong>Available until</strong> shows when), then deleted. Only you can download it.</p>`,
  },
];
