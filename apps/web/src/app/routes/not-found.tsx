import { Link } from 'react-router';
import { useDocumentTitle } from '@/components/page-header';
import { Button } from '@/components/ui/button';
import { Card, CardContent, CardDescription, CardHeader } from '@/components/ui/card';
import { paths } from '@/config/paths';

/** Any unknown signed-in path shows a card '404 Page Not Found'. */
export function NotFoundCard() {
  useDocumentTitle('Page Not Found');
  return (
    <Card className="mx-auto mt-8 max-w-md text-center">
      <CardHeader>
        <h1 className="text-lg font-semibold leading-tight tracking-tight">404 Page Not Found</h1>
        <CardDescription>The page you are looking for does not exist.</CardDescription>
      </CardHeader>
      <CardContent>
        <Button asChild>
          <Link to={paths.home}>Go to Dashboard</Link>
        </Button>
      </CardContent>
    </Card>
  );
}
