select `t1`.`id` as `c0`, year(`t1`.`published`) as `c1`, (
  select count(*)
  from `comments` as `t2`
  where `t2`.`article` = `t1`.`id`) as `c2`, coalesce((case when json_type(`t1`.`data`) = 'ARRAY' then json_length(`t1`.`data`) else 0 end), 0) as `c3`
from `articles` as `t1`
order by `t1`.`id`
limit ?
-- values: [100]
