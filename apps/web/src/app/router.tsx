import { lazy, Suspense } from 'react';
import { createBrowserRouter } from 'react-router';
import { FullPageSpinner } from '@/components/full-page-spinner';
import { paths } from '@/config/paths';
import { HelpLayout } from './layouts/help-layout';
import { MainLayout } from './layouts/main-layout';
import { RequireAdmin, RequireAuth } from './layouts/require-auth';
import { RootLayout } from './layouts/root-layout';
import { SignedOutOnly } from './layouts/signed-out-only';
import { UploadOnlyLayout } from './layouts/upload-only-layout';
import { NotFoundCard } from './routes/not-found';
import { RouteError } from './routes/route-error';

// Every page is its own chunk: the initial bundle holds only the shells.
const LoginRoute = lazy(() => import('./routes/login'));
const RegisterPatientRoute = lazy(() => import('./routes/register-patient'));
const RegisterMedicalRoute = lazy(() => import('./routes/register-medical'));
const MfaVerifyRoute = lazy(() => import('./routes/mfa-verify'));
const ForgotPasswordRoute = lazy(() => import('./routes/forgot-password'));
const ResetPasswordRoute = lazy(() => import('./routes/reset-password'));
const RegistrationPendingRoute = lazy(() => import('./routes/registration-pending'));
const DashboardRoute = lazy(() => import('./routes/dashboard'));
const UploadRoute = lazy(() => import('./routes/upload'));
const StudiesRoute = lazy(() => import('./routes/studies'));
const ShareRoute = lazy(() => import('./routes/share'));
const ServicesAvailableRoute = lazy(() => import('./routes/services-available'));
const ServicesPurchasedRoute = lazy(() => import('./routes/services-purchased'));
const AnalysisServicesRoute = lazy(() => import('./routes/analysis-services'));
const ProvidersRoute = lazy(() => import('./routes/providers'));
const BillingRoute = lazy(() => import('./routes/billing'));
const SettingsRoute = lazy(() => import('./routes/settings'));
const HelpRoute = lazy(() => import('./routes/help'));
const HelpArticleRoute = lazy(() => import('./routes/help-article'));
const StudyTransferRoute = lazy(() => import('./routes/study-transfer'));
const AdminRoute = lazy(() => import('./routes/admin'));
const ProfessionalOrdersRoute = lazy(() => import('./routes/professional-orders'));
const ProfessionalProfileRoute = lazy(() => import('./routes/professional-profile'));
const NotificationsRoute = lazy(() => import('./routes/notifications'));
const VerifyEmailRoute = lazy(() => import('./routes/verify-email'));
const LinksRoute = lazy(() => import('./routes/links'));
// The page a study link opens, for anyone holding it: no session, no sign-in, its own chunk.
const ShlRoute = lazy(() => import('./routes/shl'));

/** The SPA's routes. Signed-out visitors see the login page on every signed-in path (RequireAuth). */
export const router = createBrowserRouter([
  {
    // Outside RootLayout: the recipient of a link has no account, so nothing asks who is signed in.
    path: paths.shl,
    errorElement: <RouteError />,
    element: (
      <Suspense fallback={<FullPageSpinner />}>
        <ShlRoute />
      </Suspense>
    ),
  },
  {
    element: <RootLayout />,
    errorElement: <RouteError />,
    children: [
      // The emailed confirmation link works whether or not the user is signed in.
      { path: paths.verifyEmail, element: <VerifyEmailRoute /> },
      {
        element: <SignedOutOnly />,
        children: [
          { path: paths.login, element: <LoginRoute /> },
          { path: paths.registerPatient, element: <RegisterPatientRoute /> },
          { path: paths.registerMedical, element: <RegisterMedicalRoute /> },
          { path: paths.mfaVerify, element: <MfaVerifyRoute /> },
          { path: paths.forgotPassword, element: <ForgotPasswordRoute /> },
          { path: paths.resetPassword, element: <ResetPasswordRoute /> },
          { path: paths.registrationPending, element: <RegistrationPendingRoute /> },
        ],
      },
      {
        element: <RequireAuth />,
        children: [
          {
            path: paths.help,
            element: <HelpLayout />,
            children: [
              { index: true, element: <HelpRoute /> },
              { path: paths.helpArticle, element: <HelpArticleRoute /> },
            ],
          },
          {
            path: paths.uploadOnly,
            element: <UploadOnlyLayout />,
            children: [{ index: true, element: <UploadRoute /> }],
          },
          { path: paths.studyTransfer, element: <StudyTransferRoute /> },
          {
            element: <MainLayout />,
            children: [
              { index: true, element: <DashboardRoute /> },
              { path: paths.upload, element: <UploadRoute /> },
              { path: paths.studies, element: <StudiesRoute /> },
              { path: paths.links, element: <LinksRoute /> },
              { path: paths.share, element: <ShareRoute /> },
              { path: paths.servicesAvailable, element: <ServicesAvailableRoute /> },
              { path: paths.servicesPurchased, element: <ServicesPurchasedRoute /> },
              { path: paths.analysisServices, element: <AnalysisServicesRoute /> },
              { path: paths.providers, element: <ProvidersRoute /> },
              { path: paths.billing, element: <BillingRoute /> },
              { path: paths.settings, element: <SettingsRoute /> },
              { path: paths.notifications, element: <NotificationsRoute /> },
              { path: paths.professionalOrders, element: <ProfessionalOrdersRoute /> },
              { path: paths.professionalProfile, element: <ProfessionalProfileRoute /> },
              {
                path: paths.admin,
                element: <RequireAdmin />,
                children: [{ index: true, element: <AdminRoute /> }],
              },
              { path: '*', element: <NotFoundCard /> },
            ],
          },
        ],
      },
    ],
  },
]);
