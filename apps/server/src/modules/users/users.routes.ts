import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { updateUserBodySchema, userSchema } from '@mi/contracts/auth';
import { errorBodySchema } from '@mi/contracts/errors';
import { z } from 'zod';
import { requestMeta, requireUser } from '../../http/auth-hook';
import { toUserDto } from '../../http/user-dto';
import type { UsersService } from './users.service';

/** `PUT /api/users/:id`: the signed-in user's own profile and preferences. */
export function usersRoutes({
  users,
  config,
}: {
  users: UsersService;
  config: { defaultMaxStorageGB: number };
}): FastifyPluginAsyncZod {
  return async (app) => {
    app.put(
      '/users/:id',
      {
        schema: {
          tags: ['users'],
          summary: 'Update your profile and preferences',
          description:
            'Turning two-factor sign-in off or changing its method needs a recent proof of identity (POST /api/auth/reauthenticate); otherwise 403 REAUTH_REQUIRED.',
          params: z.object({ id: z.string().max(100) }),
          body: updateUserBodySchema,
          response: {
            200: userSchema,
            400: errorBodySchema,
            401: errorBodySchema,
            403: errorBodySchema,
            404: errorBodySchema,
          },
        },
      },
      async (req) => {
        const updated = await users.updateOwn(requireUser(req), req.params.id, req.body, requestMeta(req));
        return toUserDto(updated, config.defaultMaxStorageGB);
      },
    );
  };
}
