import type { UpdateUserBody, User } from '@mi/contracts/auth';
import { Loader2 } from 'lucide-react';
import { useId, useState, type FormEvent } from 'react';
import { Button } from '@/components/ui/button';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '@/components/ui/card';
import { Input } from '@/components/ui/input';
import { Label } from '@/components/ui/label';
import { toast } from '@/hooks/use-toast';
import { errorMessage } from '@/lib/api-client';
import { useUpdateUser } from '../api/update-user';

/** Settings → Personal Info (spec §2, §5, §8). Empty values are left out of the update. */
export function PersonalInfoForm({ user }: { user: User }) {
  const id = useId();
  const update = useUpdateUser();
  const [name, setName] = useState(user.name ?? '');
  const [dateOfBirth, setDateOfBirth] = useState(user.dateOfBirth ?? '');
  const [mobilePhone, setMobilePhone] = useState(user.mobilePhone ?? '');

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    const body: UpdateUserBody = {};
    if (name.trim()) body.name = name.trim();
    // <input type="date"> already yields YYYY-MM-DD.
    if (dateOfBirth) body.dateOfBirth = dateOfBirth;
    if (mobilePhone.trim()) body.mobilePhone = mobilePhone.trim();
    update.mutate(
      { id: user.id, ...body },
      {
        onSuccess: () =>
          toast({ title: 'Update Completed', description: 'Personal info saved successfully.' }),
        onError: (err) =>
          toast({ title: 'Update Failed', description: errorMessage(err), variant: 'destructive' }),
      },
    );
  };

  return (
    <Card>
      <CardHeader>
        <CardTitle>Personal Info</CardTitle>
        <CardDescription>Your name and contact details.</CardDescription>
      </CardHeader>
      <CardContent>
        <form noValidate onSubmit={onSubmit} className="grid gap-4 sm:max-w-lg" aria-label="Personal info">
          <div className="grid gap-2">
            <Label htmlFor={`${id}-name`}>Full Name</Label>
            <Input
              id={`${id}-name`}
              autoComplete="name"
              value={name}
              onChange={(e) => setName(e.target.value)}
            />
          </div>
          <div className="grid gap-2">
            <Label htmlFor={`${id}-dob`}>Date of Birth</Label>
            <Input
              id={`${id}-dob`}
              type="date"
              autoComplete="bday"
              max={new Date().toISOString().slice(0, 10)}
              value={dateOfBirth}
              onChange={(e) => setDateOfBirth(e.target.value)}
            />
          </div>
          <div className="grid gap-2">
            <Label htmlFor={`${id}-email`}>Email</Label>
            <Input id={`${id}-email`} type="email" value={user.email} disabled readOnly />
          </div>
          <div className="grid gap-2">
            <Label htmlFor={`${id}-phone`}>
              Phone{' '}
              <span aria-hidden="true" className="text-destructive">
                *
              </span>
            </Label>
            <Input
              id={`${id}-phone`}
              type="tel"
              inputMode="tel"
              autoComplete="tel"
              aria-required="true"
              value={mobilePhone}
              onChange={(e) => setMobilePhone(e.target.value)}
            />
          </div>
          <div>
            <Button type="submit" disabled={update.isPending} aria-busy={update.isPending || undefined}>
              {update.isPending && <Loader2 className="animate-spin" aria-hidden="true" />}
              Save Changes
            </Button>
          </div>
        </form>
      </CardContent>
    </Card>
  );
}
