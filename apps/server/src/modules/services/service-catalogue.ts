import type { ServiceType } from '@mi/contracts/orders';

export interface CatalogueService {
  name: string;
  scope: string;
  description: string;
  typicalTime: string;
  requiredData: string[];
  type: ServiceType;
  supportedModalities: string[];
  /** The price a new offer starts from, in cents; the platform's automated analysis sells AI services at it. */
  defaultPriceCents: number;
}

/**
 * The analysis services a new installation starts with (Available Services, Analysis services).
 * The first three, their prices, turnaround and modalities are the product's own; the others
 * cover further scopes a professional may offer. A service is listed only once someone offers it
 * and can deliver it: the automated ones by the platform's own analysis, the others by verified
 * professionals (their workspace) or organisations an admin links to one.
 */
export const SERVICE_CATALOGUE: readonly CatalogueService[] = [
  {
    name: 'AI Quick Analysis',
    scope: 'ai_analysis',
    description:
      'An automated technical report computed from the study itself: series and image counts, acquisition parameters, slice coverage and gaps, dose fields when present and a few key images. Automated, not a diagnosis.',
    typicalTime: '5-10 minutes',
    requiredData: ['DICOM images (X-Ray, CT or MRI)', 'At least one complete series'],
    type: 'AI',
    supportedModalities: ['X-Ray', 'CT', 'MRI'],
    defaultPriceCents: 4999,
  },
  {
    name: 'Expert Review',
    scope: 'expert_review',
    description:
      'A board-certified radiologist reads your study and writes a report with findings, impression and recommendation.',
    typicalTime: '24-48 hours',
    requiredData: ['DICOM images (X-Ray or CT)', 'Reason for the study, if known'],
    type: 'Expert',
    supportedModalities: ['X-Ray', 'CT'],
    defaultPriceCents: 19999,
  },
  {
    name: 'Complete Analysis Package',
    scope: 'comprehensive_analysis',
    description: 'The automated technical report and an expert radiologist reading together, in one order.',
    typicalTime: '24-48 hours',
    requiredData: ['DICOM images (X-Ray or MRI)', 'Prior reports, if any'],
    type: 'Combined',
    supportedModalities: ['X-Ray', 'MRI'],
    defaultPriceCents: 24999,
  },
  {
    name: 'Cardiac CT Review',
    scope: 'cardiology',
    description:
      'A cardiologist reviews a cardiac CT or CT angiography: coronary arteries, calcium, chambers.',
    typicalTime: '2-3 days',
    requiredData: ['Cardiac CT or CT angiography series'],
    type: 'Expert',
    supportedModalities: ['CT'],
    defaultPriceCents: 27999,
  },
  {
    name: 'Neuro MRI Second Opinion',
    scope: 'neurology',
    description: 'A neurologist gives a second opinion on a brain or spine MRI.',
    typicalTime: '3-5 days',
    requiredData: ['Brain or spine MRI series', 'Previous report, if any'],
    type: 'Expert',
    supportedModalities: ['MRI'],
    defaultPriceCents: 31999,
  },
  {
    name: 'Oncology Imaging Consultation',
    scope: 'oncology',
    description: 'An oncologist reviews staging or follow-up imaging and comments on change over time.',
    typicalTime: '3-5 days',
    requiredData: ['CT, MRI or PET series', 'Earlier studies for comparison, if any'],
    type: 'Expert',
    supportedModalities: ['CT', 'MRI', 'PET'],
    defaultPriceCents: 37999,
  },
  {
    name: 'Pediatric Imaging Review',
    scope: 'pediatrics',
    description: "A paediatric specialist reviews a child's X-ray, ultrasound or MRI.",
    typicalTime: '24-48 hours',
    requiredData: ['DICOM images (X-Ray, Ultrasound or MRI)'],
    type: 'Expert',
    supportedModalities: ['X-Ray', 'Ultrasound', 'MRI'],
    defaultPriceCents: 17999,
  },
  {
    name: 'Musculoskeletal MRI Review',
    scope: 'expert_review',
    description: 'A musculoskeletal radiologist reads joint and sports-injury MRI.',
    typicalTime: '24-48 hours',
    requiredData: ['Joint MRI series'],
    type: 'Expert',
    supportedModalities: ['MRI'],
    defaultPriceCents: 18999,
  },
  {
    name: 'AI Chest X-Ray Screening',
    scope: 'ai_analysis',
    description:
      'Automated technical checks of a chest radiograph: projection, exposure fields and image statistics. Automated, not a diagnosis.',
    typicalTime: '5-10 minutes',
    requiredData: ['Chest X-Ray (PA or AP)'],
    type: 'AI',
    supportedModalities: ['X-Ray'],
    defaultPriceCents: 2999,
  },
];
