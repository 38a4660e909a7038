import { api } from '@/lib/api-client';

/** What an admin list does to one of its records (a service, a provider): create, edit, retire, restore. */
export type RecordChange<Input> =
  | { kind: 'create'; input: Input }
  | { kind: 'update'; id: string; input: Input }
  | { kind: 'retire' | 'restore'; id: string };

/** The URL of one record under its list's URL. */
export const recordUrl = (base: string, id: string) => `${base}/${encodeURIComponent(id)}`;

/** POST {base}, PUT {base}/{id}, POST {base}/{id}/retire | restore: the routes every admin list answers. */
export function changeRecord<Answer, Input>(base: string, change: RecordChange<Input>): Promise<Answer> {
  switch (change.kind) {
    case 'create':
      return api.post<Answer>(base, change.input);
    case 'update':
      return api.put<Answer>(recordUrl(base, change.id), change.input);
    case 'retire':
    case 'restore':
      return api.post<Answer>(`${recordUrl(base, change.id)}/${change.kind}`);
  }
}

/** A create/edit form's change: create for a new record, update for the one being edited. */
export function saveRecord<Input>(record: 'new' | { id: string }, input: Input): RecordChange<Input> {
  return record === 'new' ? { kind: 'create', input } : { kind: 'update', id: record.id, input };
}
