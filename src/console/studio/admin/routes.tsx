/**
 * The administration's routes (files, project settings, activity, operations), each page in a
 * chunk of its own (React.lazy): none of them weighs on the first load.
 */
import { lazy, Suspense, type ReactNode } from 'react';
import { LinearProgress } from '@mui/material';
import { Route } from 'react-router-dom';

const FilesPage = lazy(() => import('../files/files-page.js'));
const SettingsPage = lazy(() => import('./settings-page.js'));
const ActivityPage = lazy(() => import('./activity-page.js'));
const OperationsPage = lazy(() => import('./operations-page.js'));

const later = (page: ReactNode) => <Suspense fallback={<LinearProgress />}>{page}</Suspense>;

export const AdminRoutes = [
  <Route key="files" path="/files" element={later(<FilesPage />)} />,
  <Route key="settings" path="/settings/project" element={later(<SettingsPage />)} />,
  <Route key="activity" path="/activity" element={later(<ActivityPage />)} />,
  <Route key="operations" path="/operations" element={later(<OperationsPage />)} />,
];
