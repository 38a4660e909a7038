// modules/users: what other modules, http/ and the composition root may use. Lint
// (architecture/import-boundaries) refuses imports of this module's other files from outside it.
export { usersRoutes } from './users.routes';
export { createUsersService, type UsersService } from './users.service';
export { createUsersModule } from './users.module';
