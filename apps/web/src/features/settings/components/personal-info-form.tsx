import { zodResolver } from '@hookform/resolvers/zod';
import { updateUserBodySchema, type User } from '@mi/contracts/auth';
import { Loader2 } from 'lucide-react';
import { useId, useState } from 'react';
import { useForm } from 'react-hook-form';
import { z } from 'zod';
import { FormRow } from '@/components/form-row';
import { Button } from '@/components/ui/button';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '@/components/ui/card';
import { Input } from '@/components/ui/input';
import { Label } from '@/components/ui/label';
import { toast } from '@/hooks/use-toast';
import { errorMessage } from '@/lib/api-client';
import { useUpdateUser } from '../api/update-user';
import { ChangeEmailDialog } from './change-email-dialog';

/** A field the update leaves out when it is empty, checked by the server's rule otherwise. */
function leftOutWhenEmpty<T extends z.ZodType<unknown, string | undefined>>(rule: T) {
  return z
    .string()
    .transform((value) => value.trim() || undefined)
    .pipe(rule);
}

const { name, dateOfBirth, mobilePhone } = updateUserBodySchema.shape;
const personalInfoSchema = z.object({
  name: leftOutWhenEmpty(name),
  // <input type="date"> already yields YYYY-MM-DD.
  dateOfBirth: leftOutWhenEmpty(dateOfBirth),
  mobilePhone: leftOutWhenEmpty(mobilePhone),
});
type PersonalInfoInput = z.input<typeof personalInfoSchema>;
type PersonalInfoValues = z.output<typeof personalInfoSchema>;

/** Settings → Personal Info. Empty values are left out of the update. */
export function PersonalInfoForm({ user }: { user: User }) {
  const id = useId();
  const update = useUpdateUser();
  const [emailOpen, setEmailOpen] = useState(false);
  const {
    register,
    handleSubmit,
    formState: { errors },
  } = useForm<PersonalInfoInput, unknown, PersonalInfoValues>({
    resolver: zodResolver(personalInfoSchema),
    defaultValues: {
      name: user.name ?? '',
      dateOfBirth: user.dateOfBirth ?? '',
      mobilePhone: user.mobilePhone ?? '',
    },
  });

  const onSubmit = (body: PersonalInfoValues) =>
    update.mutate(
      { id: user.id, ...body },
      {
        onSuccess: () =>
          toast({ title: 'Update Completed', description: 'Personal info saved successfully.' }),
        onError: (err) =>
          toast({ title: 'Update Failed', description: errorMessage(err), variant: 'destructive' }),
      },
    );

  const field = (key: keyof PersonalInfoInput) => ({
    id: `${id}-${key}`,
    'aria-invalid': errors[key] ? true : undefined,
    'aria-describedby': errors[key] ? `${id}-${key}-error` : undefined,
  });

  return (
    <Card>
      <CardHeader>
        <CardTitle>Personal Info</CardTitle>
        <CardDescription>Your name and contact details.</CardDescription>
      </CardHeader>
      <CardContent>
        <form
          noValidate
          onSubmit={handleSubmit(onSubmit)}
          className="grid gap-4 sm:max-w-lg"
          aria-label="Personal info"
        >
          <FormRow label="Full Name" name="name" id={id} error={errors.name?.message}>
            <Input autoComplete="name" {...field('name')} {...register('name')} />
          </FormRow>
          <FormRow label="Date of Birth" name="dateOfBirth" id={id} error={errors.dateOfBirth?.message}>
            <Input
              type="date"
              autoComplete="bday"
              max={new Date().toISOString().slice(0, 10)}
              {...field('dateOfBirth')}
              {...register('dateOfBirth')}
            />
          </FormRow>
          <div className="grid gap-2">
            <Label htmlFor={`${id}-email`}>Email</Label>
            <div className="flex gap-2">
              <Input id={`${id}-email`} type="email" value={user.email} disabled readOnly />
              <Button type="button" variant="outline" onClick={() => setEmailOpen(true)}>
                Change email
              </Button>
            </div>
          </div>
          <FormRow
            label={
              <>
                Phone{' '}
                <span aria-hidden="true" className="text-destructive">
                  *
                </span>
              </>
            }
            name="mobilePhone"
            id={id}
            error={errors.mobilePhone?.message}
          >
            <Input
              type="tel"
              inputMode="tel"
              autoComplete="tel"
              aria-required="true"
              {...field('mobilePhone')}
              {...register('mobilePhone')}
            />
          </FormRow>
          <div>
            <Button type="submit" disabled={update.isPending} aria-busy={update.isPending || undefined}>
              {update.isPending && <Loader2 className="animate-spin" aria-hidden="true" />}
              Save Changes
            </Button>
          </div>
        </form>
      </CardContent>
      <ChangeEmailDialog open={emailOpen} onOpenChange={setEmailOpen} />
    </Card>
  );
}
