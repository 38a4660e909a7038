import {
  professionalProfileInputSchema,
  type ProfessionalProfile,
  type ProfessionalProfileInput,
} from '@mi/contracts/directory';
import { z } from 'zod';

/**
 * The profile form: the server's rules, with each credential a row of its own (a field array
 * needs objects).
 */
export const profileFormSchema = professionalProfileInputSchema.omit({ credentials: true }).extend({
  credentials: z
    .array(
      z.object({
        value: z
          .string()
          .trim()
          .min(1, 'Enter the credential or remove it')
          .max(100, 'At most 100 characters'),
      }),
    )
    .max(20, 'At most 20 credentials'),
});
export type ProfileFormValues = z.input<typeof profileFormSchema>;
export type ProfileFormOutput = z.output<typeof profileFormSchema>;

export const MAX_CREDENTIALS = 20;

export function toProfileForm(p: ProfessionalProfile): ProfileFormValues {
  return {
    description: p.description,
    yearsOfExperience: p.yearsOfExperience,
    credentials: p.credentials.map((value) => ({ value })),
    workingHours: { ...p.workingHours },
    location: { ...p.location },
    contact: { ...p.contact },
  };
}

export function toProfileInput(values: ProfileFormOutput): ProfessionalProfileInput {
  return { ...values, credentials: values.credentials.map((c) => c.value) };
}

/** 'Before publishing, add a description, years of experience and a city and country.' */
export function missingSentence(missing: string[]): string {
  if (missing.length === 0) return '';
  const list =
    missing.length === 1
      ? missing[0]!
      : `${missing.slice(0, -1).join(', ')} and ${missing[missing.length - 1]!}`;
  return `Before publishing, add ${list}.`;
}
