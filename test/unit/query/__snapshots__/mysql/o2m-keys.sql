select (
  select coalesce(json_arrayagg(`t2`.`id`
      order by `t2`.`id`
      limit ?), json_array())
  from `comments` as `t2`
  where `t2`.`article` = `t1`.`id`) as `c0`
from `articles` as `t1`
order by `t1`.`id`
limit ?
-- values: [100,100]
