import { randomBytes, randomUUID } from 'node:crypto';
import { z } from 'zod';
import { normalizeEmail } from '@mi/contracts/rules';
import { generateSeries } from '../../dicom/synthetic-series';
import { defineJob } from '../../jobs/queue';
import type { Logger } from 'pino';
import type { ObjectStorage } from '../../ports/storage/storage';
import type { UsersRepository } from '../accounts';
import type { FulfilmentService } from '../fulfilment';
import type { ProvidersService } from '../providers';
import type { ServicesService } from '../services';
import { hashPassword } from '../auth';
import type { RequestMeta } from '../../http/request-meta';
import { instanceKey } from '../ingest';
import { parseDicomHeader } from '../../dicom-archive/dicom-header';
import { createStudiesRepository } from '../studies';
import { crcOf } from '../../dicom-archive/zip-reader';
import { createDemoRepository } from './demo.repository';

/**
 * Demo data, only when asked for (`npm run demo`, or DEMO_DATA=true; started from src/main.ts): a small directory of demo
 * professionals and an organisation, their offers, a demo patient with sample studies, and demo
 * readers that really accept and deliver the orders sent to them (the `demo-fulfil` job). Every
 * name carries '(Demo)' and every directory entry the demo flag, so the app labels them 'Demo'
 * wherever they show (directory, services, purchases, receipts). Emails use the reserved .invalid
 * domain: nothing is ever delivered to a real person.
 */

const DEMO_META: RequestMeta = { requestId: 'demo-data', ip: '127.0.0.1' };

interface DemoProfessional {
  email: string;
  name: string;
  specialty: string;
  hospital: string;
  position: string;
  city: string;
  country: string;
  description: string;
  years: string;
  services: string[];
}

const DEMO_PROFESSIONALS: DemoProfessional[] = [
  {
    email: 'demo.radiologist@demo.invalid',
    name: 'Dr. Alex Morgan (Demo)',
    specialty: 'Radiology',
    hospital: 'Demo General Hospital',
    position: 'Consultant Radiologist',
    city: 'Springfield',
    country: 'Demo Land',
    description:
      'A demo account: its readings are written automatically to show how an Expert Review is delivered. Not a medical opinion.',
    years: '12',
    services: ['Expert Review', 'Complete Analysis Package'],
  },
  {
    email: 'demo.neurologist@demo.invalid',
    name: 'Dr. Sam Rivera (Demo)',
    specialty: 'Neurology',
    hospital: 'Demo Neuro Clinic',
    position: 'Neurologist',
    city: 'Shelbyville',
    country: 'Demo Land',
    description: 'A demo account that shows a second opinion on MRI. Its reports are not medical opinions.',
    years: '7',
    services: ['Neuro MRI Second Opinion'],
  },
];

const DEMO_ORGANISATION = {
  name: 'Demo Teleradiology Group (Demo)',
  specialty: 'Radiology',
  email: 'demo.group@demo.invalid',
  description: 'A demo organisation, linked to the demo radiologist.',
};

const DEMO_PATIENT = { email: 'demo.patient@demo.invalid', name: 'Demo Patient (Demo)' };

/** The sample studies of the demo patient: synthetic phantoms, named as such. */
const SAMPLE_STUDIES = [
  { description: 'Demo: synthetic CT phantom', slices: 40 },
  { description: 'Demo: synthetic CT phantom (follow-up)', slices: 24 },
];

const password = () => `${randomBytes(9).toString('base64url')}a1!`;

/**
 * What demo data is made with: the members of the composition root's `Services` (src/services.ts)
 * it uses, named here so this module does not import the composition root.
 */
export interface DemoServices {
  log: Logger;
  users: UsersRepository;
  database: { db: Parameters<typeof createDemoRepository>[0] };
  storage: ObjectStorage;
  providers: ProvidersService;
  analysisServices: ServicesService;
  fulfilment: FulfilmentService;
}

/**
 * Seeds the demo data once (a later start finds the demo patient and does nothing). Prints the
 * demo accounts' passwords once, as the admin's first password is.
 */
export async function ensureDemoData(services: DemoServices): Promise<void> {
  const { users, log } = services;
  if (await users.findByEmail(normalizeEmail(DEMO_PATIENT.email))) return;
  const now = new Date();
  const credentials: string[] = [];

  const readers: Array<{ id: string; email: string }> = [];
  for (const demo of DEMO_PROFESSIONALS) {
    const secret = password();
    const created = await users.insertProfessionalIfEmailFree(
      {
        email: demo.email,
        emailNormalized: normalizeEmail(demo.email),
        passwordHash: await hashPassword(secret),
        name: demo.name,
        role: 'professional',
        accountStatus: 'active',
        emailVerifiedAt: now,
        termsAcceptedAt: now,
        welcomeModalShown: true,
      },
      {
        licenseNumber: 'DEMO-0000',
        licenseState: 'Demo',
        licenseExpiryDate: `${now.getUTCFullYear() + 5}-12-31`,
        specialty: demo.specialty,
        hospital: demo.hospital,
        position: demo.position,
      },
    );
    if (!created) continue;
    await users.markProfessionalReviewed(created.id, created.id, now);
    const actor = { id: created.id, role: 'professional' };
    await services.providers.professional.update(
      actor,
      {
        description: demo.description,
        yearsOfExperience: demo.years,
        credentials: ['Demo credential'],
        workingHours: { weekdays: 'Always (automatic demo)', weekends: 'Always (automatic demo)' },
        location: { street: '', city: demo.city, state: '', zipCode: '', country: demo.country },
        contact: { email: '', mobile: '', website: '' },
      },
      DEMO_META,
    );
    const profile = await services.providers.professional.publish(actor, true, DEMO_META);
    await services.providers.markDemo(profile.providerId);
    for (const offer of await services.analysisServices.professional.list(created.id)) {
      if (!demo.services.includes(offer.serviceName)) continue;
      await services.analysisServices.professional.save(
        actor,
        offer.serviceId,
        {
          price: offer.defaultPrice,
          turnaround: 'A few seconds (demo)',
          modalities: offer.supportedModalities,
        },
        DEMO_META,
      );
    }
    readers.push({ id: created.id, email: demo.email });
    credentials.push(`${demo.email} / ${secret}`);
  }

  await services.providers.insertDirectory([
    {
      name: DEMO_ORGANISATION.name,
      specialty: DEMO_ORGANISATION.specialty,
      description: DEMO_ORGANISATION.description,
      email: DEMO_ORGANISATION.email,
      emailNormalized: normalizeEmail(DEMO_ORGANISATION.email),
      credentials: [],
      kind: 'organisation',
      demo: true,
      linkedUserId: readers[0]?.id ?? null,
      createdAt: now,
      updatedAt: now,
    },
  ]);

  const patientSecret = password();
  const patient = await users.insertIfEmailFree({
    email: DEMO_PATIENT.email,
    emailNormalized: normalizeEmail(DEMO_PATIENT.email),
    passwordHash: await hashPassword(patientSecret),
    name: DEMO_PATIENT.name,
    role: 'patient',
    accountStatus: 'active',
    emailVerifiedAt: now,
    termsAcceptedAt: now,
    shareMedicalData: true,
  });
  if (patient) {
    await addSampleStudies(services, patient.id);
    credentials.push(`${DEMO_PATIENT.email} / ${patientSecret}`);
  }
  // Printed once, on purpose: the only way to learn the demo accounts' passwords.
  log.warn(`Demo data added (labelled 'Demo'). Demo accounts (shown only once): ${credentials.join(' · ')}`);
}

/** The sample studies, stored and indexed as an upload's would be. */
async function addSampleStudies(services: DemoServices, ownerId: string): Promise<void> {
  const repo = createStudiesRepository(services.database.db);
  for (const sample of SAMPLE_STUDIES) {
    const series = generateSeries({
      count: sample.slices,
      size: 128,
      patientName: 'Demo^Patient',
      patientId: 'DEMO-1',
      description: sample.description,
      seriesDescription: 'Demo phantom',
    });
    const { row: upload } = await repo.ensureUpload({
      ownerId,
      objectName: `${ownerId}/${randomUUID()}/study.zip`,
      uploadType: 'regular',
      sizeBytes: 0,
    });
    const items = [];
    for (const file of series.files) {
      const header = parseDicomHeader(file.bytes, { complete: false });
      if (header.kind !== 'instance') continue;
      const storageKey = instanceKey(upload.id, header.sopInstanceUid);
      await services.storage.put(storageKey, file.bytes, { size: file.bytes.length });
      items.push({ header, sizeBytes: file.bytes.length, crc32: crcOf(file.bytes), storageKey });
    }
    await repo.commitIngest({
      uploadId: upload.id,
      ownerId,
      defaultMaxBytes: 10 * 1024 ** 3,
      items,
      summary: { demo: true },
      notification: () => ({
        userId: ownerId,
        type: 'system',
        title: 'Demo study added',
        description: `${sample.description} (sample data).`,
      }),
    });
  }
}

export const DEMO_FULFIL = { name: 'demo-fulfil', payload: z.object({ orderId: z.string().uuid() }) };

/**
 * A demo reader accepts and delivers an order sent to a demo provider, through the same steps a
 * professional takes in My Orders; its report says plainly that it is a demo. Other orders are
 * left alone.
 */
export function demoFulfilJob(services: Pick<DemoServices, 'database' | 'fulfilment'>) {
  const repo = createDemoRepository(services.database.db);
  return defineJob({
    ...DEMO_FULFIL,
    retry: { limit: 10, delaySeconds: 15 },
    async handler({ orderId }, { log }) {
      const row = await repo.findDemoOrder(orderId);
      if (!row?.readerId) return;
      const reader = { id: row.readerId, role: 'professional' as const, email: '' };
      if (row.status === 'pending_approval') await services.fulfilment.accept(reader, orderId, DEMO_META);
      await services.fulfilment.deliver(
        reader,
        orderId,
        {
          findings:
            'DEMO REPORT. This report was written automatically by a demo account to show how a reading is delivered. It is not a medical reading of your images.',
          impression: 'Demo only: not a medical opinion.',
          recommendation: 'For a real reading, order from a verified professional who is not labelled Demo.',
        },
        DEMO_META,
      );
      log.info({ orderId }, 'demo order delivered');
    },
  });
}
