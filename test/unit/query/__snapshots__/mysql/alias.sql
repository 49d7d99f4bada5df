select `t1`.`id` as `c0`, `t1`.`title` as `c1`, (
  select coalesce(json_arrayagg(json_array(`t2`.`text`)
      order by `t2`.`id`
      limit ?), json_array())
  from `comments` as `t2`
  where `t2`.`article` = `t1`.`id`) as `c2`
from `articles` as `t1`
order by `t1`.`id`
limit ?
-- values: [1,100]
