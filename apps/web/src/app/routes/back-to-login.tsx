import { ArrowLeft } from 'lucide-react';
import { Link, useLocation } from 'react-router';
import { Button } from '@/components/ui/button';
import { paths, withQuery } from '@/config/paths';
import { carrySearch } from '@/features/auth/utils/post-sign-in-target';

export function BackToLogin() {
  const location = useLocation();
  return (
    <Button asChild variant="outline" className="w-full">
      <Link to={withQuery(paths.login, carrySearch(location.search))}>
        <ArrowLeft aria-hidden="true" /> Back to Login
      </Link>
    </Button>
  );
}
