import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { RouterProvider } from 'react-router/dom';
import { AppProviders } from './app/providers';
import { router } from './app/router';
import { keepHiddenContentInert } from './lib/inert-behind-overlays';
import './index.css';

const root = document.getElementById('root');
if (!root) throw new Error('index.html has no #root element');

keepHiddenContentInert();

createRoot(root).render(
  <StrictMode>
    <AppProviders>
      <RouterProvider router={router} />
    </AppProviders>
  </StrictMode>,
);
