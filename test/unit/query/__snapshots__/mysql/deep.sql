select `t1`.`id` as `c0`, (
  select coalesce(json_arrayagg(json_array(`t2`.`text`)
      order by `t2`.`id` desc
      limit ?
      offset ?), json_array())
  from `comments` as `t2`
  where `t2`.`article` = `t1`.`id` and `t2`.`text` like binary ? escape '!') as `c1`, (
  select json_array(`t3`.`name`) as `v`
  from `authors` as `t3`
  where `t3`.`id` = `t1`.`author` and `t3`.`name` <> ?) as `c2`
from `articles` as `t1`
order by `t1`.`id`
limit ?
-- values: [2,1,"%x%","Bob",100]
